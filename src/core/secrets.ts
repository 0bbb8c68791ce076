import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** `prefix` followed by 32 random bytes, base64url (43 characters). */
export function mintToken(prefix: string): string {
  return prefix + randomBytes(32).toString("base64url");
}

export function sha256Hex(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * Salted SHA-256, stored as `salt$hash`. A fast hash is right here: tokens carry 256 random
 * bits, so there is nothing to brute-force, and a slow hash on every request caps throughput.
 */
export function hashToken(token: string): string {
  const salt = randomBytes(16).toString("base64url");
  return `${salt}$${createHash("sha256").update(salt).update(token).digest("base64url")}`;
}

export function verifyTokenHash(token: string, stored: string): boolean {
  const sep = stored.indexOf("$");
  if (sep <= 0) return false;
  const salt = stored.slice(0, sep);
  const want = Buffer.from(stored.slice(sep + 1), "base64url");
  const got = createHash("sha256").update(salt).update(token).digest();
  return want.length === got.length && timingSafeEqual(want, got);
}

/** Constant-time equality of two strings; the length check comes first. */
export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const x = typeof a === "string" ? Buffer.from(a) : a;
  const y = typeof b === "string" ? Buffer.from(b) : b;
  return x.length === y.length && timingSafeEqual(x, y);
}

export const last4 = (token: string) => token.slice(-4);
