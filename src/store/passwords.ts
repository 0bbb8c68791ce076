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

/** Writes the account's lockout state after a sign-in attempt. */
export async function setLoginFailures(db: Db, userId: string, failedLogins: number, lockedUntil: number | null): Promise<void> {
  await db.updateTable("users").set({ failed_logins: failedLogins, locked_until: lockedUntil }).where("id", "=", userId).execute();
}
