import { sha256Hex } from "../../core/secrets.js";
import type { ProviderName } from "../../webhooks/webhook-config.js";
import type { DeliveryEvent } from "../../forges/shared/delivery-event.js";
import type { HeaderBag } from "../../forges/shared/headers.js";
import type { BodyAuth } from "../../forges/shared/provider.js";
import { providers } from "../../forges/providers.js";

/** A delivery body and what is needed to prove and read it. */
export interface BodyJob {
  provider: ProviderName;
  headers: HeaderBag;
  rawBody: Uint8Array;
  auth: BodyAuth;
}

/** The body hashed, proven and parsed (`byPrevious` as in VerifyResult); a failure is recorded as an `invalid` delivery. */
export type PreparedBody = { rawSha256: string } & (
  | { ok: true; event: DeliveryEvent; byPrevious: boolean }
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
  const verified = provider.verify({ headers: job.headers, rawBody, auth: job.auth, rawSha256 });
  if (!verified.ok) return { rawSha256, ok: false, code: verified.code, reason: verified.reason };
  const parsed = provider.parse(verified.payload, job.headers);
  if (!parsed.ok) return { rawSha256, ok: false, code: "bad_payload", reason: parsed.reason };
  return { rawSha256, ok: true, event: parsed.event, byPrevious: verified.byPrevious };
}
