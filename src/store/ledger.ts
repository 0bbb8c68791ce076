import { sql } from "kysely";
import type { Insertable } from "kysely";
import type { RunUsageEventsTable } from "./schema/runs.js";
import type { CredentialUsageTable } from "./schema/usage.js";
import type { Db } from "./db.js";

export type UsageEventRow = Insertable<RunUsageEventsTable>;

/** Records one usage report; false when the same report of the run was recorded before. */
export async function insertUsageEvent(db: Db, row: UsageEventRow): Promise<boolean> {
  const inserted = await db
    .insertInto("run_usage_events")
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning("id")
    .executeTakeFirst();
  return inserted !== undefined;
}

/** True when another report of the same attempt already charged this meter row. */
export async function attemptAlreadyCharged(
  db: Db,
  e: { run_id: string; attempt: number; id: string; fingerprint: string; provider: string; tier: string; repo: string },
): Promise<boolean> {
  const row = await db
    .selectFrom("run_usage_events")
    .select("id")
    .where("run_id", "=", e.run_id)
    .where("attempt", "=", e.attempt)
    .where("fingerprint", "=", e.fingerprint)
    .where("provider", "=", e.provider)
    .where("tier", "=", e.tier)
    .where("repo", "=", e.repo)
    .where("id", "!=", e.id)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export type MeterKey = Pick<CredentialUsageTable, "fingerprint" | "provider" | "tier" | "team_id" | "month" | "repo">;

export async function addCredentialUsage(
  db: Db,
  key: MeterKey,
  d: { meteredMicro: number; estimatedMicro: number; attempts: number; inputTokens: number; outputTokens: number; aggregateTokens: number },
  now: number,
): Promise<void> {
  await db
    .insertInto("credential_usage")
    .values({
      ...key,
      metered_micro: d.meteredMicro,
      estimated_micro: d.estimatedMicro,
      attempts: d.attempts,
      input_tokens: d.inputTokens,
      output_tokens: d.outputTokens,
      aggregate_tokens: d.aggregateTokens,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(["fingerprint", "provider", "tier", "team_id", "month", "repo"]).doUpdateSet({
        metered_micro: sql<number>`credential_usage.metered_micro + ${d.meteredMicro}`,
        estimated_micro: sql<number>`credential_usage.estimated_micro + ${d.estimatedMicro}`,
        attempts: sql<number>`credential_usage.attempts + ${d.attempts}`,
        input_tokens: sql<number>`credential_usage.input_tokens + ${d.inputTokens}`,
        output_tokens: sql<number>`credential_usage.output_tokens + ${d.outputTokens}`,
        aggregate_tokens: sql<number>`credential_usage.aggregate_tokens + ${d.aggregateTokens}`,
        updated_at: now,
      }),
    )
    .execute();
}

export interface LedgerFilter {
  month: string;
  tier?: string;
  teamId?: string;
  fingerprint?: string;
  /** When set, only rows of that repository; rows with no repository never match. */
  repo?: string;
}

export interface LedgerLine {
  fingerprint: string;
  provider: string;
  tier: string;
  metered_micro: number;
  estimated_micro: number;
  attempts: number;
  input_tokens: number;
  output_tokens: number;
  aggregate_tokens: number;
  tenants: number;
}

/** Meter rows summed over repositories (and over tenants unless one is named). */
export async function listCredentialUsage(db: Db, f: LedgerFilter): Promise<LedgerLine[]> {
  let q = db.selectFrom("credential_usage").where("month", "=", f.month);
  if (f.tier) q = q.where("tier", "=", f.tier as CredentialUsageTable["tier"]);
  if (f.teamId) q = q.where("team_id", "=", f.teamId);
  if (f.fingerprint) q = q.where("fingerprint", "=", f.fingerprint);
  if (f.repo !== undefined) q = q.where("repo", "=", f.repo).where("repo", "!=", "");
  const rows = await q
    .select((eb) => [
      "fingerprint",
      "provider",
      "tier",
      eb.fn.sum<number>("metered_micro").as("metered_micro"),
      eb.fn.sum<number>("estimated_micro").as("estimated_micro"),
      eb.fn.sum<number>("attempts").as("attempts"),
      eb.fn.sum<number>("input_tokens").as("input_tokens"),
      eb.fn.sum<number>("output_tokens").as("output_tokens"),
      eb.fn.sum<number>("aggregate_tokens").as("aggregate_tokens"),
      eb.fn.count<number>("team_id").distinct().as("tenants"),
    ])
    .groupBy(["fingerprint", "provider", "tier"])
    .orderBy("fingerprint")
    .orderBy("provider")
    .orderBy("tier")
    .execute();
  return rows.map((r) => ({
    fingerprint: r.fingerprint,
    provider: r.provider,
    tier: r.tier,
    metered_micro: Number(r.metered_micro),
    estimated_micro: Number(r.estimated_micro),
    attempts: Number(r.attempts),
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    aggregate_tokens: Number(r.aggregate_tokens),
    tenants: Number(r.tenants),
  }));
}
