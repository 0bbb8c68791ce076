import type { Db } from "./db.js";

/** Sets a user's password; a set password also ends any lock and counted failures. */
export async function setUserPassword(db: Db, userId: string, hash: string, now: number, changeRequired: boolean): Promise<boolean> {
  const r = await db
    .updateTable("users")
    .set({ password_hash: hash, password_set_at: now, password_change_required: changeRequired ? 1 : 0, failed_logins: 0, locked_until: null })
    .where("id", "=", userId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export interface LoginFailures {
  failedLogins: number;
  lockedUntil: number | null;
}

/**
 * Writes the account's lockout state after a sign-in attempt, only if it is still `from`: false
 * when a concurrent attempt changed it first (the caller reads again and decides again).
 */
export async function swapLoginFailures(db: Db, userId: string, from: LoginFailures, to: LoginFailures): Promise<boolean> {
  const r = await db
    .updateTable("users")
    .set({ failed_logins: to.failedLogins, locked_until: to.lockedUntil })
    .where("id", "=", userId)
    .where("failed_logins", "=", from.failedLogins)
    .where((eb) => (from.lockedUntil === null ? eb("locked_until", "is", null) : eb("locked_until", "=", from.lockedUntil)))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
