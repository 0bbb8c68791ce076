import type { Selectable } from "kysely";
import type { OrgsTable, TeamsTable } from "./schema/tenancy.js";
import { Compiled } from "./compiled.js";
import { dialect } from "./dialect.js";
import type { Db } from "./db.js";

/** The team and what the gate reads of its org. */
export type TeamAndOrg = {
  team: Selectable<TeamsTable>;
  org: Omit<Selectable<OrgsTable>, "retry_usage_window" | "retry_max_attempts" | "retry_max_wait" | "retry_jitter" | "runner_pool">;
};

type OrgColumns = Selectable<OrgsTable>;
const teamWithOrg = new Compiled<
  Selectable<TeamsTable> & {
    org_name: string;
    org_status: OrgColumns["status"];
    monthly_cost_cap_micro: number;
    monthly_run_quota: number;
    memory_quota_bytes: number;
    credential_audience: string;
    monthly_webhook_calls: number;
    org_created_at: number;
    org_updated_at: number;
  }
>(
  `select "teams".*, "orgs"."name" as "org_name", "orgs"."status" as "org_status", "orgs"."monthly_cost_cap_micro",
     "orgs"."monthly_run_quota", "orgs"."memory_quota_bytes", "orgs"."credential_audience", "orgs"."monthly_webhook_calls",
     "orgs"."created_at" as "org_created_at", "orgs"."updated_at" as "org_updated_at"
   from "teams" inner join "orgs" on "orgs"."id" = "teams"."org_id" where "teams"."id" = ?`,
);

/**
 * The launch gate's reads and writes, run inside one transaction. The team and its org are
 * read in one query; when `needsLock` says a limit will be checked, they are read again under
 * FOR NO KEY UPDATE (PostgreSQL; team before org everywhere, so launches cannot deadlock), so
 * the count, the bucket and the counters cannot move under the decision. That lock serialises
 * gated launches with each other and with changes to the team or org, but not with the foreign
 * key checks (FOR KEY SHARE) of runs written meanwhile: ungated launches of the org's other
 * teams, in a batch of deliveries, do not wait for a gated one. With no limit to check
 * nothing is locked: concurrent launches then meet only on the usage counter, written last.
 * SQLite's BEGIN IMMEDIATE already serialises writers.
 */
export async function loadTeamAndOrg(tx: Db, teamId: string, needsLock: (found: TeamAndOrg) => boolean): Promise<TeamAndOrg | undefined> {
  const [row] = await teamWithOrg.rows(tx, [teamId]);
  if (!row) return undefined;
  const {
    org_name,
    org_status,
    monthly_cost_cap_micro,
    monthly_run_quota,
    memory_quota_bytes,
    credential_audience,
    monthly_webhook_calls,
    org_created_at,
    org_updated_at,
    ...team
  } = row;
  const found: TeamAndOrg = {
    team,
    org: {
      id: team.org_id,
      name: org_name,
      status: org_status,
      monthly_cost_cap_micro,
      monthly_run_quota,
      memory_quota_bytes,
      credential_audience,
      monthly_webhook_calls,
      created_at: org_created_at,
      updated_at: org_updated_at,
    },
  };
  if (!dialect(tx).lockRows || !needsLock(found)) return found;
  const team2 = await tx.selectFrom("teams").selectAll().where("id", "=", teamId).forNoKeyUpdate().executeTakeFirst();
  const org2 = team2 && (await tx.selectFrom("orgs").selectAll().where("id", "=", team2.org_id).forNoKeyUpdate().executeTakeFirst());
  return team2 && org2 ? { team: team2, org: org2 } : undefined;
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
