import { noLimitApplies } from "../admission/decide-launch.js";
import { testDeliveryRow, testRunRow } from "../test-support/rows.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, storeKinds, type TestStore } from "../test-support/harness.js";
import { findDeliveryByKey, listDeliveries, type NewDelivery } from "./deliveries.js";
import type { CallLimits } from "./delivery-ledger.js";
import { monthlyWebhookCalls } from "./webhook-calls.js";

/** The ledger's contract, one table of cases run on each store: its TypeScript (SQLite) and SQL (PostgreSQL) twins agree. */
describe.each(storeKinds())("the delivery ledger on %s", (kind) => {
  let ts: TestStore;
  beforeAll(async () => {
    ts = await openTestStore(kind);
  });
  afterAll(() => ts.close());

  const limits = (over: Partial<CallLimits>): CallLimits => ({
    webhookId: "whk_a",
    orgId: "org_a",
    rate: 1,
    burst: 10,
    orgMonthlyCalls: 0,
    webhookMonthlyCalls: 0,
    month: "2026-11",
    now: 0,
    ...over,
  });
  const admitMany = (n: number, l: CallLimits) => Promise.all(Array.from({ length: n }, () => ts.store.ledger.admit(l)));

  it("admits exactly burst calls of 200 parallel ones at the bucket", async () => {
    const results = await admitMany(200, limits({ webhookId: "whk_bucket", burst: 10 }));
    expect(results.filter((r) => r.kind === "admitted")).toHaveLength(10);
    expect(results.filter((r) => r.kind === "rate_limited")).toHaveLength(190);
    expect(await monthlyWebhookCalls(ts.store.db, "webhook:whk_bucket", "2026-11")).toBe(10);
  });

  it("admits exactly the org quota; denied calls leave the counters unchanged", async () => {
    const l = limits({ webhookId: "whk_quota", orgId: "org_quota", burst: 1000, orgMonthlyCalls: 7 });
    const results = await admitMany(200, l);
    expect(results.filter((r) => r.kind === "admitted")).toHaveLength(7);
    expect(results.filter((r) => r.kind === "quota_exceeded")).toHaveLength(193);
    expect(await monthlyWebhookCalls(ts.store.db, "org:org_quota", "2026-11")).toBe(7);
    expect(await monthlyWebhookCalls(ts.store.db, "webhook:whk_quota", "2026-11")).toBe(7);
  });

  it("caps one webhook below the org quota, leaving the org's count unchanged, and counts a new month afresh", async () => {
    const l = limits({ webhookId: "whk_own", orgId: "org_own", burst: 1000, orgMonthlyCalls: 100, webhookMonthlyCalls: 2 });
    const results = await admitMany(5, l);
    expect(results.map((r) => r.kind).sort()).toEqual(["admitted", "admitted", "quota_exceeded", "quota_exceeded", "quota_exceeded"]);
    expect(results.find((r) => r.kind === "quota_exceeded")).toEqual({ kind: "quota_exceeded", scope: "webhook" });
    expect(await monthlyWebhookCalls(ts.store.db, "org:org_own", "2026-11")).toBe(2);
    expect(await monthlyWebhookCalls(ts.store.db, "webhook:whk_own", "2026-11")).toBe(2);
    const december = await admitMany(1, { ...l, month: "2026-12" });
    expect(december[0]?.kind).toBe("admitted");
  });

  it("writes a call's row only when its admission admits it, 200 parallel at the bucket", async () => {
    const l = limits({ webhookId: "whk_rows", burst: 10 });
    const row = (i: number): NewDelivery => testDeliveryRow(`dlv_${i}`, { tenant_id: "team_rows", webhook_id: "whk_rows", created_at: i, updated_at: i });
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => ts.store.ledger.commit({ admission: l, row: row(i) })));
    const admitted = answers.flatMap((r, i) => (r.kind === "recorded" ? [`dlv_${i}`] : []));
    expect(admitted).toHaveLength(10);
    expect(answers.filter((r) => r.kind === "refused" && r.refusal.kind === "rate_limited")).toHaveLength(190);
    expect((await listDeliveries(ts.store.db, "whk_rows", 500)).map((d) => d.id).sort()).toEqual(admitted.sort());
    expect(await monthlyWebhookCalls(ts.store.db, "webhook:whk_rows", "2026-11")).toBe(10);
  });

  it("writes a replay's duplicate row when its key is held, retries nothing for a launch_error holder, and writes nothing for a free key", async () => {
    const l = limits({ webhookId: "whk_replay", burst: 10 });
    const row = (id: string, key: string, over: Partial<NewDelivery> = {}): NewDelivery =>
      testDeliveryRow(id, {
        tenant_id: "team_replay",
        webhook_id: "whk_replay",
        status: "launched",
        idempotency_key: key,
        payload_sha256: "ab".repeat(32),
        event_kind: "pull_request",
        event_action: "opened",
        project_path: "o/r",
        subject_id: "pr:1",
        subject_sha: "c".repeat(40),
        source_ip: "10.0.0.1",
        bot_id: "review-pr",
        reason: null,
        forge_delivery_id: "d-1",
        attempts: 1,
        created_at: 5,
        updated_at: 5,
        ...over,
      });
    await ts.store.ledger.commit({ row: row("dlv_holder", "k-held", { run_id: "run_holder", launched_at: 5 }) });
    await ts.store.ledger.commit({ row: row("dlv_failed", "k-failed", { status: "launch_error", failed_at: 5, denial_reason: "concurrency_cap_exceeded" }) });
    const replay = (id: string, key: string) =>
      ts.store.ledger.commit({ admission: l, row: row(id, key, { status: "duplicate", created_at: 9, updated_at: 9 }), replayOf: `dup_${id}` });

    const held = await replay("dlv_r1", "k-held");
    expect(held).toEqual({ kind: "taken", holder: { id: "dlv_holder", run_id: "run_holder", status: "launched" }, recorded: true });
    const failed = await replay("dlv_r2", "k-failed");
    expect(failed).toEqual({ kind: "taken", holder: { id: "dlv_failed", run_id: null, status: "launch_error" }, recorded: false });
    expect(await replay("dlv_r3", "k-free")).toEqual({ kind: "free" });

    const rows = await listDeliveries(ts.store.db, "whk_replay", 10);
    expect(rows.map((r) => r.id).sort()).toEqual(["dlv_failed", "dlv_holder", "dup_dlv_r1"]);
    expect(rows.find((r) => r.id === "dup_dlv_r1")).toMatchObject({
      status: "duplicate",
      idempotency_key: "row|dup_dlv_r1",
      run_id: "run_holder",
      reason: "duplicate of dlv_holder",
      launched_at: null,
      attempts: 0,
      created_at: 9,
      updated_at: 9,
      subject_sha: "c".repeat(40),
      forge_delivery_id: "d-1",
    });
    expect(await findDeliveryByKey(ts.store.db, "team_replay", "k-free")).toBeUndefined();
    // Each replay's call was admitted and counted, whatever its key.
    expect(await monthlyWebhookCalls(ts.store.db, "webhook:whk_replay", "2026-11")).toBe(3);
  });

  it("refills the bucket over time at the webhook's rate", async () => {
    const l = limits({ webhookId: "whk_refill", burst: 2, rate: 0.5 });
    await admitMany(2, l);
    expect((await admitMany(1, { ...l, now: 1000 }))[0]).toEqual({ kind: "rate_limited", retryAfterSeconds: 1 });
    expect((await admitMany(1, { ...l, now: 2000 }))[0]?.kind).toBe("admitted");
  });

  it("answers Retry-After in whole seconds rounded up, and an hour for a webhook whose rate is 0", async () => {
    const l = limits({ webhookId: "whk_round", burst: 1, rate: 0.3 });
    await admitMany(1, l);
    // 0.03 tokens back after 100 ms; 0.97 more take 3.23 s.
    expect((await admitMany(1, { ...l, now: 100 }))[0]).toEqual({ kind: "rate_limited", retryAfterSeconds: 4 });
    const still = limits({ webhookId: "whk_still", burst: 1, rate: 0 });
    expect((await admitMany(1, still))[0]?.kind).toBe("admitted");
    expect((await admitMany(1, { ...still, now: 10_000_000 }))[0]).toEqual({ kind: "rate_limited", retryAfterSeconds: 3600 });
    expect(await monthlyWebhookCalls(ts.store.db, "webhook:whk_still", "2026-11")).toBe(1);
  });

  /** `noLimitApplies` and the store's check of its own rows: the same verdict for every case. */
  const NO_DEFAULTS = { maxConcurrentRuns: 0, launchRatePerMin: 0, monthlyCostCapMicroUsd: 0, monthlyRunQuota: 0 };
  const ownLimits = [
    { name: "nothing set", org: {}, team: {} },
    { name: "a suspended org", org: { status: "suspended" }, team: {} },
    { name: "a read-only org", org: { status: "read-only" }, team: {} },
    { name: "a suspended team", org: {}, team: { status: "suspended" } },
    { name: "a concurrency cap", org: {}, team: { max_concurrent_runs: 2 } },
    { name: "a launch rate", org: {}, team: { launch_rate_per_min: 5 } },
    { name: "a cost cap", org: { monthly_cost_cap_micro: 1_000_000 }, team: {} },
    { name: "a run quota", org: { monthly_run_quota: 10 }, team: {} },
  ] as const;
  it.each(ownLimits)("launches in one commit exactly when noLimitApplies says so: $name", async ({ name, org, team }) => {
    const id = name.replaceAll(" ", "_");
    const orgRow = { status: "active" as const, monthly_cost_cap_micro: 0, monthly_run_quota: 0, ...org };
    const teamRow = { status: "active" as const, max_concurrent_runs: 0, launch_rate_per_min: 0, ...team };
    await ts.store.db
      .insertInto("orgs")
      .values({ id: `org_${id}`, name: `o-${id}`, created_at: 0, updated_at: 0, ...orgRow } as never)
      .execute();
    await ts.store.db
      .insertInto("teams")
      .values({ id: `team_${id}`, org_id: `org_${id}`, name: `t-${id}`, created_at: 0, updated_at: 0, ...teamRow } as never)
      .execute();
    const expected = noLimitApplies(
      { status: orgRow.status, monthlyCostCapMicro: orgRow.monthly_cost_cap_micro, monthlyRunQuota: orgRow.monthly_run_quota },
      { status: teamRow.status, maxConcurrentRuns: teamRow.max_concurrent_runs, launchRatePerMin: teamRow.launch_rate_per_min },
      NO_DEFAULTS,
    );
    const run = testRunRow(`run_${id}`, `team_${id}`);
    const row = testDeliveryRow(`dlv_${id}`, { tenant_id: `team_${id}`, status: "launched", run_id: run.id, idempotency_key: `k-${id}` });
    const answer = await ts.store.ledger.commit({ row, launch: { teamId: `team_${id}`, run, month: "2026-11" } });
    expect(answer).toEqual(expected ? { kind: "launched", orgId: `org_${id}` } : { kind: "gate" });
    expect(await findDeliveryByKey(ts.store.db, `team_${id}`, `k-${id}`)).toEqual(
      expected ? { id: `dlv_${id}`, run_id: run.id, status: "launched" } : undefined,
    );
  });
});
