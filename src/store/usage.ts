import { sql } from "kysely";
import type { Db } from "./db.js";

/**
 * The org's counters for one UTC month, zeros when it has none yet: its runs (findOrgRuns) and
 * its spend. What the gate's quota and cost cap check and the usage view reports, read one way.
 */
export async function findOrgUsage(db: Db, orgId: string, month: string) {
  const row = await db.selectFrom("org_usage").selectAll().where("org_id", "=", orgId).where("month", "=", month).executeTakeFirst();
  return {
    runs: await findOrgRuns(db, orgId, month),
    costMicro: Number(row?.cost_micro ?? 0),
    inputTokens: Number(row?.input_tokens ?? 0),
    outputTokens: Number(row?.output_tokens ?? 0),
    aggregateTokens: Number(row?.aggregate_tokens ?? 0),
  };
}

export { addOrgRuns } from "./delivery-path/add-org-runs.js";

/**
 * The month's run count: the sum of the org's tallies for the month (`org_run_tallies`, written
 * only by addOrgRuns), never below 0 (a hand-back is a -1 on its own slot).
 */
export async function findOrgRuns(db: Db, orgId: string, month: string): Promise<number> {
  const row = await db
    .selectFrom("org_run_tallies")
    .select((eb) => eb.fn.sum<number | string | null>("runs").as("n"))
    .where("org_id", "=", orgId)
    .where("month", "=", month)
    .executeTakeFirst();
  return Math.max(0, Number(row?.n ?? 0));
}

export interface SpendDelta {
  costMicro: number;
  inputTokens: number;
  outputTokens: number;
  aggregateTokens: number;
}

/** Adds an attempt's spend to the org's month. */
export async function addOrgSpend(db: Db, orgId: string, month: string, d: SpendDelta, now: number): Promise<void> {
  await db
    .insertInto("org_usage")
    .values({
      org_id: orgId,
      month,
      cost_micro: d.costMicro,
      input_tokens: d.inputTokens,
      output_tokens: d.outputTokens,
      aggregate_tokens: d.aggregateTokens,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(["org_id", "month"]).doUpdateSet({
        cost_micro: sql<number>`org_usage.cost_micro + ${d.costMicro}`,
        input_tokens: sql<number>`org_usage.input_tokens + ${d.inputTokens}`,
        output_tokens: sql<number>`org_usage.output_tokens + ${d.outputTokens}`,
        aggregate_tokens: sql<number>`org_usage.aggregate_tokens + ${d.aggregateTokens}`,
        updated_at: now,
      }),
    )
    .execute();
}

async function count(q: { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }): Promise<number> {
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/** The resource counts of the org usage view, each read from its own table. */
export async function countOrgResources(db: Db, orgId: string, month: string) {
  const teamIds = db.selectFrom("teams").select("id").where("org_id", "=", orgId);
  const calls = await db.selectFrom("webhook_call_counters").select("calls").where("scope", "=", `org:${orgId}`).where("month", "=", month).executeTakeFirst();
  return {
    activeRuns: await count(
      db
        .selectFrom("runs")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("org_id", "=", orgId)
        .where("status", "in", ["queued", "running"]),
    ),
    webhookCalls: Number(calls?.calls ?? 0),
    apiKeys: await count(
      db
        .selectFrom("api_keys")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("org_id", "=", orgId),
    ),
    secrets: await count(
      db
        .selectFrom("workflow_secrets")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("org_id", "=", orgId),
    ),
    botBindings: await count(
      db
        .selectFrom("org_bots")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("org_id", "=", orgId),
    ),
    webhooks: await count(
      db
        .selectFrom("webhooks")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("tenant_id", "in", teamIds),
    ),
  };
}

/** Active runs per team of the org, for the per-team limits in the usage view. */
export async function countActiveRunsByTeam(db: Db, orgId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom("runs")
    .select(["team_id", (eb) => eb.fn.countAll<number>().as("n")])
    .where("org_id", "=", orgId)
    .where("status", "in", ["queued", "running"])
    .groupBy("team_id")
    .execute();
  return new Map(rows.map((r) => [r.team_id, Number(r.n)]));
}

const DAY_MS = 86_400_000;

/**
 * The org's month day by day, from `from` (the month's first instant) up to `to`: runs created
 * and spend (micro-USD) recorded each UTC day, every day present (zeros included), oldest first.
 */
export async function listOrgDailyUsage(
  db: Db,
  orgId: string,
  month: string,
  from: number,
  to: number,
): Promise<{ dayStart: number; runs: number; costMicro: number }[]> {
  // Runs created per UTC day in [from, to), over the org's teams (the runs_team_created index).
  const runDay = sql<number>`${sql.ref("created_at")} / ${sql.lit(DAY_MS)}`;
  const runsPerDay = await db
    .selectFrom("runs")
    .select((eb) => [runDay.as("day"), eb.fn.countAll<number | string>().as("n")])
    .where("team_id", "in", (eb) => eb.selectFrom("teams").select("id").where("org_id", "=", orgId))
    .where("created_at", ">=", from)
    .where("created_at", "<", to)
    .groupBy(runDay)
    .execute();
  // Spend recorded per UTC day in the org's usage month: the usage reports that charged `org_usage`.
  const spendDay = sql<number>`${sql.ref("created_at")} / ${sql.lit(DAY_MS)}`;
  const spendPerDay = await db
    .selectFrom("run_usage_events")
    .select((eb) => [spendDay.as("day"), eb.fn.sum<number | string>("cost_micro").as("cost")])
    .where("org_id", "=", orgId)
    .where("month", "=", month)
    .groupBy(spendDay)
    .execute();
  const runs = new Map(runsPerDay.map((r) => [Number(r.day), Number(r.n)]));
  const cost = new Map(spendPerDay.map((r) => [Number(r.day), Number(r.cost)]));
  const days: { dayStart: number; runs: number; costMicro: number }[] = [];
  for (let day = Math.floor(from / DAY_MS); day * DAY_MS < to; day++) {
    days.push({ dayStart: day * DAY_MS, runs: runs.get(day) ?? 0, costMicro: cost.get(day) ?? 0 });
  }
  return days;
}
