import { testDeliveryRow, testRunRow } from "../test-support/rows.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, storeKinds, type TestStore } from "../test-support/harness.js";
import { findDeliveryByKey, type NewDelivery } from "./deliveries.js";
import type { DeliveryCommit } from "./delivery-ledger.js";
import type { RunRow } from "./runs.js";
import { findOrgUsage } from "./usage.js";

/**
 * A delivery's launch as the ledger commits it on each store: left to the gate when a limit or a
 * status needs it (the cases of `noLimitApplies`, in delivery-ledger.test.ts), else written and
 * counted on its own org's month alone.
 */
const MONTH = "2026-11";

const row = (id: string, teamId: string, key: string, over: Partial<NewDelivery> = {}): NewDelivery =>
  testDeliveryRow(id, {
    tenant_id: teamId,
    webhook_id: "whk_l",
    status: "launched",
    idempotency_key: key,
    event_kind: "pull_request",
    event_action: "opened",
    project_path: "o/r",
    subject_id: "pr:1",
    bot_id: "review-pr",
    run_id: `run_${id}`,
    reason: null,
    launched_at: 1,
    attempts: 1,
    ...over,
  });
const run = (id: string, teamId: string): RunRow => testRunRow(id, teamId, MONTH);
const launch = (id: string, teamId: string, key: string): DeliveryCommit => ({
  row: row(id, teamId, key),
  launch: { teamId, run: run(`run_${id}`, teamId), month: MONTH },
  replayOf: `dup_${id}`,
});

const orgs = [
  { id: "org_ok" },
  { id: "org_two" },
  { id: "org_susp", status: "suspended" as const },
  { id: "org_ro", status: "read-only" as const },
  { id: "org_cost", monthly_cost_cap_micro: 1 },
  { id: "org_quota", monthly_run_quota: 100 },
];
const teams = [
  { id: "team_ok", org_id: "org_ok" },
  { id: "team_two", org_id: "org_two" },
  { id: "team_conc", org_id: "org_ok", max_concurrent_runs: 2 },
  { id: "team_rate", org_id: "org_ok", launch_rate_per_min: 5 },
  { id: "team_susp", org_id: "org_susp" },
  { id: "team_ro", org_id: "org_ro" },
  { id: "team_cost", org_id: "org_cost" },
  { id: "team_quota", org_id: "org_quota" },
];

describe.each(storeKinds())("a delivery's launch decided by the store on %s", (kind) => {
  let ts: TestStore;
  beforeAll(async () => {
    ts = await openTestStore(kind);
    await ts.store.db
      .insertInto("orgs")
      .values(orgs.map((o) => ({ name: o.id, status: "active", monthly_cost_cap_micro: 0, monthly_run_quota: 0, created_at: 0, updated_at: 0, ...o })) as never)
      .execute();
    const team = { status: "active" as const, launch_rate_per_min: 0, max_concurrent_runs: 0, created_at: 0, updated_at: 0 };
    await ts.store.db
      .insertInto("teams")
      .values(teams.map((t) => ({ ...team, name: t.id, ...t })))
      .execute();
  });
  afterAll(() => ts.close());

  const path = { write: (w: DeliveryCommit) => ts.store.ledger.commit(w) };
  {
    const id = (name: string) => `l_${name}`;
    const runsOf = (teamId: string) =>
      ts.store.db.selectFrom("runs").select(["id", "org_id"]).where("team_id", "=", teamId).where("id", "like", "run_l_%").execute();

    it.each([
      ["an unknown team", "team_none"],
      ["a suspended org", "team_susp"],
      ["the team's MaxConcurrentRuns", "team_conc"],
      ["the org's MonthlyRunQuota", "team_quota"],
    ])("leaves %s to the gate, writing nothing", async (_label, teamId) => {
      expect(await path.write(launch(id(teamId), teamId, `k-${id(teamId)}`))).toEqual({ kind: "gate" });
      expect(await runsOf(teamId)).toEqual([]);
      expect(await findDeliveryByKey(ts.store.db, teamId, `k-${id(teamId)}`)).toBeUndefined();
    });

    it("launches for a team no limit names: the run in its team's org, the row, one run on that org's month and no other's", async () => {
      const before = { ok: (await findOrgUsage(ts.store.db, "org_ok", MONTH)).runs, two: (await findOrgUsage(ts.store.db, "org_two", MONTH)).runs };
      expect(await path.write(launch(id("a"), "team_ok", `k-${id("a")}`))).toEqual({ kind: "launched", orgId: "org_ok" });
      expect(await path.write(launch(id("b"), "team_ok", `k-${id("b")}`))).toEqual({ kind: "launched", orgId: "org_ok" });
      expect(await path.write(launch(id("c"), "team_two", `k-${id("c")}`))).toEqual({ kind: "launched", orgId: "org_two" });
      expect((await runsOf("team_ok")).sort((x, y) => x.id.localeCompare(y.id))).toEqual([
        { id: `run_${id("a")}`, org_id: "org_ok" },
        { id: `run_${id("b")}`, org_id: "org_ok" },
      ]);
      expect(await findDeliveryByKey(ts.store.db, "team_two", `k-${id("c")}`)).toMatchObject({ id: id("c"), run_id: `run_${id("c")}`, status: "launched" });
      expect((await findOrgUsage(ts.store.db, "org_ok", MONTH)).runs).toBe(before.ok + 2);
      expect((await findOrgUsage(ts.store.db, "org_two", MONTH)).runs).toBe(before.two + 1);
    });

    it("answers a held key as taken: a launched holder's replay gets its duplicate row, a launch_error holder's none", async () => {
      const held = launch(id("held"), "team_ok", `k-${id("held")}`);
      expect((await path.write(held))?.kind).toBe("launched");
      const replay = await path.write(launch(id("again"), "team_ok", `k-${id("held")}`));
      expect(replay).toEqual({ kind: "taken", holder: { id: id("held"), run_id: `run_${id("held")}`, status: "launched" }, recorded: true });
      const dup = await ts.store.db
        .selectFrom("webhook_deliveries")
        .select(["status", "run_id", "reason"])
        .where("id", "=", `dup_${id("again")}`)
        .executeTakeFirst();
      expect(dup).toMatchObject({ status: "duplicate", run_id: `run_${id("held")}`, reason: `duplicate of ${id("held")}` });
      await ts.store.ledger.commit({ row: row(id("err"), "team_ok", `k-${id("err")}`, { status: "launch_error", run_id: null, launched_at: null }) });
      const retried = await path.write(launch(id("retry"), "team_ok", `k-${id("err")}`));
      expect(retried).toEqual({ kind: "taken", holder: { id: id("err"), run_id: null, status: "launch_error" }, recorded: false });
      expect(await findDeliveryByKey(ts.store.db, "team_ok", `row|dup_${id("retry")}`)).toBeUndefined();
      expect(await runsOf("team_ok")).not.toContainEqual(expect.objectContaining({ id: `run_${id("again")}` }));
    });
  }
});
