import type { Insertable, Selectable } from "kysely";
import type { Db } from "./db.js";
import type { RunnerTokensTable } from "./schema/runs.js";

export type RunnerTokenRow = Selectable<RunnerTokensTable>;
/** The platform's pool, or one org's. */
export type PoolScope = { pool: "platform" } | { pool: "org"; orgId: string };

export async function insertRunnerToken(db: Db, row: Insertable<RunnerTokensTable>): Promise<void> {
  await db.insertInto("runner_tokens").values(row).execute();
}

export function findRunnerTokenByFingerprint(db: Db, fingerprint: string): Promise<RunnerTokenRow | undefined> {
  return db.selectFrom("runner_tokens").selectAll().where("fingerprint", "=", fingerprint).executeTakeFirst();
}

export function findRunnerTokenById(db: Db, id: string): Promise<RunnerTokenRow | undefined> {
  return db.selectFrom("runner_tokens").selectAll().where("id", "=", id).executeTakeFirst();
}

export function findRunnerToken(db: Db, id: string, scope: PoolScope): Promise<RunnerTokenRow | undefined> {
  return inScope(db.selectFrom("runner_tokens").selectAll().where("id", "=", id), scope).executeTakeFirst();
}

/** Oldest first, revoked ones included. */
export function listRunnerTokens(db: Db, scope: PoolScope): Promise<RunnerTokenRow[]> {
  return inScope(db.selectFrom("runner_tokens").selectAll(), scope).orderBy("created_at").orderBy("id").execute();
}

/** False when the token is not in the scope or was revoked already. */
export async function revokeRunnerToken(db: Db, id: string, scope: PoolScope, now: number): Promise<boolean> {
  const r = await inScope(
    db.updateTable("runner_tokens").set({ revoked_at: now }).where("id", "=", id).where("revoked_at", "is", null),
    scope,
  ).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A new secret for a live token: the old one is refused from now on. */
export async function replaceRunnerTokenSecret(
  db: Db,
  id: string,
  scope: PoolScope,
  secret: { fingerprint: string; hash: string; last4: string; now: number },
): Promise<boolean> {
  const r = await inScope(
    db
      .updateTable("runner_tokens")
      .set({ fingerprint: secret.fingerprint, hash: secret.hash, last4: secret.last4, rotated_at: secret.now })
      .where("id", "=", id)
      .where("revoked_at", "is", null),
    scope,
  ).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function touchRunnerToken(db: Db, id: string, now: number): Promise<void> {
  await db.updateTable("runner_tokens").set({ last_seen_at: now }).where("id", "=", id).execute();
}

/** Live runner tokens seen since `since`, per pool. */
export async function countRunnersSeen(db: Db, since: number): Promise<Array<{ pool: "platform" | "org"; n: number }>> {
  const rows = await db
    .selectFrom("runner_tokens")
    .select((eb) => ["pool", eb.fn.countAll<number | string>().as("n")])
    .where("revoked_at", "is", null)
    .where("last_seen_at", ">=", since)
    .groupBy("pool")
    .execute();
  return rows.map((r) => ({ pool: r.pool, n: Number(r.n) }));
}

function inScope<Q extends { where: (...args: any[]) => any }>(q: Q, scope: PoolScope): Q {
  return scope.pool === "platform" ? q.where("pool", "=", "platform") : q.where("pool", "=", "org").where("org_id", "=", scope.orgId);
}
