import { sha256Hex } from "../core/secrets.js";
import type { ProviderName, WebhookSecrets } from "../webhooks/webhook-config.js";
import { tokenMatches } from "../webhooks/webhook-token.js";
import type { DeliveryEvent } from "./delivery-event.js";
import type { HeaderBag } from "./headers.js";
import type { BodyAuth } from "./providers/provider.js";
import { providers } from "./providers/registry.js";

/** What proves a body: the HMAC secret, or the salted token hash. */
export type BodyKey = { mode: "hmac"; secret: string } | { mode: "token"; secrets: Pick<WebhookSecrets, "token_hash"> };

/** A delivery body and what is needed to prove and read it. */
export interface BodyJob {
  provider: ProviderName;
  headers: HeaderBag;
  rawBody: Uint8Array;
  key: BodyKey;
}

/** The body hashed, proven and parsed; a failure is recorded as an `invalid` delivery. */
export type PreparedBody = { rawSha256: string } & (
  | { ok: true; event: DeliveryEvent }
  | { ok: false; code: "bad_signature" | "bad_payload"; reason: string }
);

/**
 * The CPU-heavy, config-free part of a delivery: SHA-256 of the raw body, the provider's
 * proof (token or HMAC), and only then the JSON parse. Pure; never throws on outside input.
 */
export function prepareBody(job: BodyJob): PreparedBody {
  const provider = providers[job.provider];
  const rawBody = Buffer.isBuffer(job.rawBody) ? job.rawBody : Buffer.from(job.rawBody.buffer, job.rawBody.byteOffset, job.rawBody.byteLength);
  const rawSha256 = sha256Hex(rawBody);
  const key = job.key;
  const auth: BodyAuth = key.mode === "hmac" ? key : { mode: "token", verifyToken: (presented) => tokenMatches(key.secrets, presented) };
  const verified = provider.verify({ headers: job.headers, rawBody, auth, rawSha256 });
  if (!verified.ok) return { rawSha256, ok: false, code: verified.code, reason: verified.reason };
  const parsed = provider.parse(verified.payload, job.headers);
  if (!parsed.ok) return { rawSha256, ok: false, code: "bad_payload", reason: parsed.reason };
  return { rawSha256, ok: true, event: parsed.event };
}
