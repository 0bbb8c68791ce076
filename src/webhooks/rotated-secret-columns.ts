import type { WebhookRow } from "../store/webhooks.js";
import type { WebhookSecrets } from "./webhook-config.js";
import { secretColumns } from "./webhook-record.js";

type PreviousColumns = Pick<WebhookRow, "previous_token_hash" | "previous_sealed_key_id" | "previous_sealed_blob" | "previous_valid_until">;

const NO_PREVIOUS: PreviousColumns = { previous_token_hash: null, previous_sealed_key_id: null, previous_sealed_blob: null, previous_valid_until: null };

/**
 * The secret columns a rotation writes: the minted token's, and the replaced `current` kept as
 * the previous secret until `now + overlapMs`, so a forge still sending it is not refused while
 * its secret field is updated. An overlap of 0 keeps none. One previous at most: rotating inside
 * a window drops the older one.
 */
export function rotatedSecretColumns(current: WebhookSecrets, minted: WebhookSecrets, overlapMs: number, now: number) {
  const previous: PreviousColumns =
    overlapMs > 0
      ? {
          previous_token_hash: current.token_hash,
          previous_sealed_key_id: current.sealed_secret?.keyId ?? null,
          previous_sealed_blob: current.sealed_secret?.blob ?? null,
          previous_valid_until: now + overlapMs,
        }
      : NO_PREVIOUS;
  return { ...secretColumns(minted), ...previous };
}
