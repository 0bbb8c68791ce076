/** How sign-in guards accounts; every number in one place. */
export const SIGN_IN_POLICY = {
  /** Wrong passwords in a row before an account locks. */
  maxFailures: 5,
  /** How long a lock lasts; the count starts afresh after it. */
  lockMs: 15 * 60_000,
  /** Failed sign-ins one address may make per window, whatever the logins (guessing across accounts). */
  addressMaxFailures: 20,
  addressWindowMs: 15 * 60_000,
  /** A session that may only change the password lives this long. */
  restrictedSessionMs: 15 * 60_000,
  /** A reset token is good once, for this long. */
  resetTtlMs: 60 * 60_000,
  /** Password hashes run at once, process-wide (libuv's default thread pool is 4). */
  hashingRunning: 4,
  /** Hashes waiting behind them (a few hundred milliseconds of work); beyond, 503 server_busy. */
  hashingWaiting: 12,
} as const;

export type SignInPolicy = typeof SIGN_IN_POLICY;

export type LoginResult = "success" | "invalid" | "locked" | "password_change_required";

/** What a sign-in knows of the account; undefined for an unknown, deactivated or password-less login. */
export interface AccountState {
  failedLogins: number;
  lockedUntil: number | null;
  passwordSetAt: number;
  changeRequired: boolean;
}

export interface LoginVerdict {
  result: LoginResult;
  /** The lockout state to write, when it changes. */
  write?: { failedLogins: number; lockedUntil: number | null };
  /** Seconds until a locked account may try again. */
  retryAfter?: number;
}

/**
 * The outcome of one attempt. A locked account is refused even with the right password; the
 * attempt that reaches `maxFailures` still answers invalid and locks the next ones. A password
 * older than `maxAgeMs` (0 = never) must be changed, as must one an admin chose.
 */
export function decideLogin(
  account: AccountState | undefined,
  passwordOk: boolean,
  now: number,
  maxAgeMs: number,
  policy: SignInPolicy = SIGN_IN_POLICY,
): LoginVerdict {
  if (!account) return { result: "invalid" };
  if (account.lockedUntil !== null && account.lockedUntil > now) {
    return { result: "locked", retryAfter: Math.ceil((account.lockedUntil - now) / 1000) };
  }
  const lockPassed = account.lockedUntil !== null;
  if (!passwordOk) {
    const failedLogins = (lockPassed ? 0 : account.failedLogins) + 1;
    return { result: "invalid", write: { failedLogins, lockedUntil: failedLogins >= policy.maxFailures ? now + policy.lockMs : null } };
  }
  const write = account.failedLogins > 0 || lockPassed ? { failedLogins: 0, lockedUntil: null } : undefined;
  const expired = maxAgeMs > 0 && now - account.passwordSetAt >= maxAgeMs;
  return { result: account.changeRequired || expired ? "password_change_required" : "success", ...(write && { write }) };
}
