import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { invalid } from "./errors.js";

/**
 * scrypt with N=2^15, r=8, p=1 (32 MiB, tens of milliseconds a hash), 16-byte salt, 32-byte
 * key: OWASP's scrypt minimum is N=2^17 with r=8,p=1 or N=2^15 with r=8,p=3; we take p=3.
 */
const PARAMS = { log2N: 15, r: 8, p: 3 };
const KEY_LEN = 32;
const MAX_MEM = 128 * 1024 * 1024;

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 1024;

function derive(password: string, salt: Buffer, log2N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, KEY_LEN, { N: 2 ** log2N, r, p, maxmem: MAX_MEM }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$log2N$r$p$salt$key`, salt and key in base64url: the parameters travel with the hash. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS.log2N, PARAMS.r, PARAMS.p);
  return ["scrypt", PARAMS.log2N, PARAMS.r, PARAMS.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, log2N, r, p, salt, key] = stored.split("$");
  if (kind !== "scrypt" || !salt || !key) return false;
  const want = Buffer.from(key, "base64url");
  const got = await derive(password, Buffer.from(salt, "base64url"), Number(log2N), Number(r), Number(p));
  return want.length === got.length && timingSafeEqual(want, got);
}

/** Length is the rule (NIST SP 800-63B): no composition rules. */
export function checkPassword(password: string, field = "password"): string {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw invalid(field, `${field} must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
  }
  return password;
}
