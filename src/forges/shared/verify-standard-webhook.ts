import { createHmac } from "node:crypto";
import { safeEqual } from "../../core/secrets.js";
import { firstHeader, type HeaderBag } from "./headers.js";
import type { SignatureCheck } from "./verify-signature.js";

/** How far a `webhook-timestamp` may be from now, either way (the Standard Webhooks default). */
export const STANDARD_TOLERANCE_MS = 5 * 60_000;
const SECONDS = /^\d{1,12}$/;
/** A base64 HMAC-SHA256 is 44 characters. */
const B64_LENGTH = 44;

/**
 * Standard Webhooks (standardwebhooks.com): `webhook-signature` holds space-separated
 * `v1,<base64 HMAC-SHA256>` over `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the secret's
 * bytes; a timestamp outside the tolerance is refused, so a captured delivery cannot be replayed
 * later. The secret is shown to callers as `whsec_` + base64 of those bytes.
 */
export function verifyStandardWebhook(secret: string, headers: HeaderBag, body: Buffer, now: number): SignatureCheck {
  const id = firstHeader(headers, ["webhook-id"])?.value;
  const timestamp = firstHeader(headers, ["webhook-timestamp"])?.value;
  const signatures = firstHeader(headers, ["webhook-signature"])?.value;
  if (!id || !timestamp || !signatures) return { ok: false, reason: "missing webhook-id, webhook-timestamp or webhook-signature" };
  if (!SECONDS.test(timestamp)) return { ok: false, reason: "webhook-timestamp is not whole seconds" };
  if (Math.abs(now - Number(timestamp) * 1000) > STANDARD_TOLERANCE_MS) return { ok: false, reason: "webhook-timestamp is outside the tolerance" };
  const expected = createHmac("sha256", secret).update(`${id}.${timestamp}.`).update(body).digest();
  for (const entry of signatures.split(" ")) {
    const [version, value] = entry.split(",", 2);
    if (version !== "v1" || value?.length !== B64_LENGTH) continue;
    if (safeEqual(Buffer.from(value, "base64"), expected)) return { ok: true };
  }
  return { ok: false, reason: "no v1 signature matches" };
}

/** The secret as Standard Webhooks libraries take it. */
export const standardSecret = (secret: string) => `whsec_${Buffer.from(secret, "utf8").toString("base64")}`;
