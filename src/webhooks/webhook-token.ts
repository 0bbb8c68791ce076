import type { Sealer } from "../core/sealer.js";
import { hashToken, last4, mintToken, sha256Hex, verifyTokenHash } from "../core/secrets.js";
import { WEBHOOK_TOKEN_PREFIX, type PreviousWebhookSecret, type StoredWebhookSecrets, type WebhookSecrets } from "./webhook-config.js";

export interface MintedWebhookToken {
  /** The plaintext: returned to the caller once, never stored as is. */
  token: string;
  last4: string;
  secrets: WebhookSecrets;
}

/**
 * Mints a `wh_` token and what is stored of it: salted hash, SHA-256 fingerprint and, when
 * `seal` is true, the plaintext sealed with the webhook id as associated data.
 */
export function mintWebhookToken(sealer: Sealer, webhookId: string, seal: boolean): MintedWebhookToken {
  const token = mintToken(WEBHOOK_TOKEN_PREFIX);
  return {
    token,
    last4: last4(token),
    secrets: {
      token_hash: hashToken(token),
      token_fingerprint: sha256Hex(token),
      sealed_secret: seal ? sealer.seal(token, webhookId) : null,
    },
  };
}

/** Constant-time check of a presented token against the stored salted hash. */
export function tokenMatches(secrets: Pick<WebhookSecrets, "token_hash">, presented: string): boolean {
  return presented.startsWith(WEBHOOK_TOKEN_PREFIX) && verifyTokenHash(presented, secrets.token_hash);
}

/** The previous secret while it still proves deliveries (now < valid_until); undefined after its window or without one. */
export function acceptedPrevious(secrets: StoredWebhookSecrets, now: number): PreviousWebhookSecret | undefined {
  const previous = secrets.previous;
  return previous !== null && now < previous.valid_until ? previous : undefined;
}

/** Which token `presented` is: the current one, else the previous one inside its window. The current is tried first. */
export function matchWebhookToken(secrets: StoredWebhookSecrets, presented: string, now: number): "current" | "previous" | undefined {
  if (tokenMatches(secrets, presented)) return "current";
  const previous = acceptedPrevious(secrets, now);
  return previous && tokenMatches(previous, presented) ? "previous" : undefined;
}

/** The HMAC key of a secret: its sealed plaintext, opened under the webhook id. Throws SealError on tamper. */
export function openWebhookSecret(sealer: Sealer, webhookId: string, secrets: Pick<WebhookSecrets, "sealed_secret">): string | undefined {
  return secrets.sealed_secret ? sealer.open(secrets.sealed_secret, webhookId) : undefined;
}
