import { createHmac } from "node:crypto";
import { safeEqual } from "../../core/secrets.js";

/** `prefixed`: `sha256=<hex>` only (GitHub). `prefix-optional`: bare hex or `sha256=<hex>`. */
export type SignatureFormat = "prefixed" | "prefix-optional";

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

const PREFIX = "sha256=";
/** A SHA-256 digest is 32 bytes, 64 hex characters. */
const HEX_LENGTH = 64;
const HEX = /^[0-9a-fA-F]+$/;

export function hmacSha256Hex(secret: string, data: Buffer): string {
  return createHmac("sha256", secret).update(data).digest("hex");
}

/**
 * HMAC-SHA256 of the exact signed bytes against a signature header value. Never throws: the
 * length and alphabet are checked before the constant-time compare of the decoded bytes.
 */
export function verifySignature(secret: string, signed: Buffer, headerValue: string, format: SignatureFormat): SignatureCheck {
  let hex = headerValue.trim();
  if (hex.toLowerCase().startsWith(PREFIX)) hex = hex.slice(PREFIX.length);
  else if (format === "prefixed") return { ok: false, reason: "signature lacks the sha256= prefix" };
  if (hex.length !== HEX_LENGTH) return { ok: false, reason: "signature has the wrong length" };
  if (!HEX.test(hex)) return { ok: false, reason: "signature is not hex" };
  const expected = createHmac("sha256", secret).update(signed).digest();
  return safeEqual(Buffer.from(hex, "hex"), expected) ? { ok: true } : { ok: false, reason: "signature mismatch" };
}
