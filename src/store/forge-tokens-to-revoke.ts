import type { Insertable, Selectable } from "kysely";
import type { Db } from "./db.js";
import type { ForgeTokensToRevokeTable } from "./schema/credentials.js";

export type TokenToRevokeRow = Selectable<ForgeTokensToRevokeTable>;

/** Notes a token to revoke once no running attempt holds it; noting it again changes nothing. */
export async function insertTokenToRevoke(db: Db, row: Insertable<ForgeTokensToRevokeTable>): Promise<void> {
  await db
    .insertInto("forge_tokens_to_revoke")
    .values(row)
    .onConflict((oc) => oc.column("fingerprint").doNothing())
    .execute();
}

/**
 * Takes up to `limit` tokens due (past `not_before`) that no running attempt was handed, moving
 * each one's `not_before` on by `leaseMs`, so one replica revokes it while others pass it by; a
 * failed revocation is taken again when that lease ends.
 */
export async function takeTokensToRevoke(db: Db, now: number, leaseMs: number, limit: number): Promise<TokenToRevokeRow[]> {
  const due = await db
    .selectFrom("forge_tokens_to_revoke as t")
    .selectAll("t")
    .where("t.not_before", "<=", now)
    .where(({ exists, not, selectFrom }) =>
      not(
        exists(
          selectFrom("attempt_credentials as ac")
            .innerJoin("run_attempts as ra", (j) => j.onRef("ra.run_id", "=", "ac.run_id").onRef("ra.number", "=", "ac.attempt"))
            .select("ac.run_id")
            .whereRef("ac.fingerprint", "=", "t.fingerprint")
            .where("ra.status", "=", "running"),
        ),
      ),
    )
    .orderBy("t.not_before")
    .limit(limit)
    .execute();
  const taken: TokenToRevokeRow[] = [];
  for (const row of due) {
    const r = await db
      .updateTable("forge_tokens_to_revoke")
      .set({ not_before: now + leaseMs })
      .where("fingerprint", "=", row.fingerprint)
      .where("not_before", "=", row.not_before)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 1) taken.push(row);
  }
  return taken;
}

export async function deleteTokenToRevoke(db: Db, fingerprint: string): Promise<void> {
  await db.deleteFrom("forge_tokens_to_revoke").where("fingerprint", "=", fingerprint).execute();
}
