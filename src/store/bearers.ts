import type { Kysely, Selectable } from "kysely";
import type { Db } from "./db.js";
import type { Database } from "./schema/index.js";

/** The tables of bearer credentials: personal access tokens and sign-in sessions. */
export type BearerTable = "access_tokens" | "sessions";

/** A bearer credential's row with what authentication needs of its user. */
export type BearerRow<T extends BearerTable> = Selectable<Database[T]> & { login: string; super_admin: number; deactivated_at: number | null };

/** The columns both tables share, which every operation here reads or writes. */
type Shared = Pick<Database["sessions"], "id" | "user_id" | "fingerprint" | "hash" | "last_used_at" | "revoked_at">;
const shared = (db: Db) => db as unknown as Kysely<{ bearers: Shared; users: Database["users"] }>;

export function findBearerByFingerprint<T extends BearerTable>(db: Db, table: T, fingerprint: string): Promise<BearerRow<T> | undefined> {
  return shared(db)
    .selectFrom(`${table} as bearers` as "bearers")
    .innerJoin("users", "users.id", "bearers.user_id")
    .selectAll("bearers")
    .select(["users.login", "users.super_admin", "users.deactivated_at"])
    .where("bearers.fingerprint", "=", fingerprint)
    .executeTakeFirst() as Promise<BearerRow<T> | undefined>;
}

export async function touchBearer(db: Db, table: BearerTable, id: string, now: number): Promise<void> {
  await shared(db)
    .updateTable(table as unknown as "bearers")
    .set({ last_used_at: now })
    .where("id", "=", id)
    .execute();
}

/** Revokes one live credential of the user; whether there was one. */
export async function revokeBearer(db: Db, table: BearerTable, userId: string, id: string, now: number): Promise<boolean> {
  const r = await shared(db)
    .updateTable(table as unknown as "bearers")
    .set({ revoked_at: now })
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Revokes every live credential of the user but `keepId` (the caller's own session, after a password change); how many. */
export async function revokeUserBearers(db: Db, table: BearerTable, userId: string, now: number, keepId = ""): Promise<number> {
  const r = await shared(db)
    .updateTable(table as unknown as "bearers")
    .set({ revoked_at: now })
    .where("user_id", "=", userId)
    .where("id", "!=", keepId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
