import type { Insertable, Selectable } from "kysely";
import type { Db } from "./db.js";
import type { PasswordResetsTable, SessionsTable } from "./schema/tenancy.js";

export type SessionRow = Selectable<SessionsTable>;

// Sessions

export async function insertSession(db: Db, row: Insertable<SessionsTable>): Promise<void> {
  await db.insertInto("sessions").values(row).execute();
}

/** A user's live sessions, newest first. */
export function listLiveSessions(db: Db, userId: string, now: number): Promise<SessionRow[]> {
  return db
    .selectFrom("sessions")
    .selectAll()
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", now)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
}

export async function clearSessionRestriction(db: Db, id: string): Promise<void> {
  await db.updateTable("sessions").set({ password_change_required: 0 }).where("id", "=", id).execute();
}

// Password reset tokens

export async function insertPasswordReset(db: Db, row: Insertable<PasswordResetsTable>): Promise<void> {
  await db.insertInto("password_resets").values(row).execute();
}

/** Spends a reset token: the user it was for, once, while it is unexpired. */
export async function usePasswordReset(db: Db, fingerprint: string, now: number): Promise<string | undefined> {
  const row = await db
    .updateTable("password_resets")
    .set({ used_at: now })
    .where("fingerprint", "=", fingerprint)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .returning("user_id")
    .executeTakeFirst();
  return row?.user_id;
}

/** A newer reset voids the older unused ones. */
export async function voidPasswordResets(db: Db, userId: string, now: number): Promise<void> {
  await db.updateTable("password_resets").set({ used_at: now }).where("user_id", "=", userId).where("used_at", "is", null).execute();
}
