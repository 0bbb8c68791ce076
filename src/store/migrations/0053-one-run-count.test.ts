import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { storeKinds } from "../../test-support/harness.js";
import { storeUpTo } from "../../test-support/migrated-store.js";
import type { Db } from "../store.js";
import { findOrgRuns, findOrgUsage } from "../usage.js";

const ORG = {
  status: "active",
  monthly_cost_cap_micro: 0,
  monthly_run_quota: 0,
  memory_quota_bytes: 0,
  monthly_webhook_calls: 0,
  credential_audience: "all",
  created_at: 1,
  updated_at: 1,
};

/** Two orgs' months as the code before 0053 left them: runs in `org_usage.runs`, and on PostgreSQL in tallies too. */
async function seedOldCounts(db: Db, withTallies: boolean): Promise<void> {
  for (const id of ["org_1", "org_2"])
    await db
      .insertInto("orgs")
      .values({ id, name: id, ...ORG } as never)
      .execute();
  const usage = (org_id: string, month: string, runs: number, cost_micro: number) =>
    ({ org_id, month, runs, cost_micro, input_tokens: 10, output_tokens: 1, aggregate_tokens: 0, updated_at: 1 }) as never;
  await db
    .insertInto("org_usage")
    .values([usage("org_1", "2026-10", 5, 100), usage("org_1", "2026-11", 2, 200), usage("org_2", "2026-11", 0, 300)])
    .execute();
  if (!withTallies) return;
  await db
    .insertInto("org_run_tallies")
    .values([
      { org_id: "org_1", month: "2026-11", slot: 0, runs: 4 },
      { org_id: "org_1", month: "2026-11", slot: 7, runs: 1 },
      { org_id: "org_2", month: "2026-12", slot: 3, runs: 6 },
    ])
    .execute();
}

async function expectOneCount(db: Db, withTallies: boolean): Promise<void> {
  expect(await findOrgRuns(db, "org_1", "2026-10")).toBe(5);
  expect(await findOrgRuns(db, "org_1", "2026-11")).toBe(withTallies ? 2 + 4 + 1 : 2);
  expect(await findOrgRuns(db, "org_2", "2026-11")).toBe(0);
  expect(await findOrgRuns(db, "org_2", "2026-12")).toBe(withTallies ? 6 : 0);
  // The spend stays where it was, and `org_usage` no longer has a run count to diverge.
  expect(await findOrgUsage(db, "org_1", "2026-11")).toEqual({
    runs: withTallies ? 7 : 2,
    costMicro: 200,
    inputTokens: 10,
    outputTokens: 1,
    aggregateTokens: 0,
  });
  expect(Object.keys(await db.selectFrom("org_usage").selectAll().executeTakeFirstOrThrow()).sort()).toEqual(
    ["aggregate_tokens", "cost_micro", "input_tokens", "month", "org_id", "output_tokens", "updated_at"].sort(),
  );
  // A zero count leaves no row behind.
  expect(await db.selectFrom("org_run_tallies").selectAll().where("org_id", "=", "org_2").where("month", "=", "2026-11").execute()).toEqual([]);
}

describe.each(storeKinds())("migration 0053 on %s", (kind) => {
  let close: (() => Promise<void>) | undefined;
  afterEach(() => close?.());

  it("folds the runs counted in org_usage into the month's tallies, adding them to tallies already there", async () => {
    const up = await storeUpTo(kind, "0052_question_posts");
    close = up.close;
    await seedOldCounts(up.store.db, true);
    const { error } = await up.migrator.migrateToLatest();
    expect(error).toBeUndefined();
    await expectOneCount(up.store.db, true);
  });

  // SQLite databases built before migration 0011 created the tallies on both databases have none.
  if (kind === "sqlite")
    it("creates the tallies where there were none and folds org_usage's counts into them", async () => {
      const up = await storeUpTo(kind, "0052_question_posts");
      close = up.close;
      await sql`drop table org_run_tallies`.execute(up.store.db);
      await seedOldCounts(up.store.db, false);
      const { error } = await up.migrator.migrateToLatest();
      expect(error).toBeUndefined();
      await expectOneCount(up.store.db, false);
    });
});
