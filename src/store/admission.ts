import type { Selectable } from "kysely";
import type { OrgsTable, TeamsTable } from "./schema/tenancy.js";
import { lockForUpdate, type Db, type StoreKind } from "./store.js";

/**
 * The launch gate's reads and writes. Callers run them inside one transaction: the team
 * and org rows are locked first (PostgreSQL FOR UPDATE; SQLite's BEGIN IMMEDIATE already
 * serialises writers), so the count, the bucket and the counters cannot move under them.
 */
export async function lockTeamAndOrg(
  tx: Db,
  kind: StoreKind,
  teamId: string,
): Promise<{ team: Selectable<TeamsTable>; org: Selectable<OrgsTable> } | undefined> {
  // Team before org, everywhere: one lock order means no deadlock between launches.
  const team = await lockForUpdate(kind, tx.selectFrom("teams").selectAll().where("id", "=", teamId)).executeTakeFirst();
  if (!team) return undefined;
  const org = await lockForUpdate(kind, tx.selectFrom("orgs").selectAll().where("id", "=", team.org_id)).executeTakeFirst();
  return org ? { team, org } : undefined;
}

export async function countActiveRuns(db: Db, teamId: string): Promise<number> {
  const row = await db
    .selectFrom("runs")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("team_id", "=", teamId)
    .where("status", "in", ["queued", "running"])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findLaunchBucket(db: Db, teamId: string): Promise<{ tokens: number; updatedAt: number } | undefined> {
  const row = await db.selectFrom("team_launch_buckets").select(["tokens", "updated_at"]).where("team_id", "=", teamId).executeTakeFirst();
  return row ? { tokens: Number(row.tokens), updatedAt: Number(row.updated_at) } : undefined;
}

export async function putLaunchBucket(db: Db, teamId: string, state: { tokens: number; updatedAt: number }): Promise<void> {
  await db
    .insertInto("team_launch_buckets")
    .values({ team_id: teamId, tokens: state.tokens, updated_at: state.updatedAt })
    .onConflict((oc) => oc.column("team_id").doUpdateSet({ tokens: state.tokens, updated_at: state.updatedAt }))
    .execute();
}
