import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { monthOf } from "../core/month.js";
import { monthlyWebhookCalls } from "../store/webhook-calls.js";
import { seedTenancy, startTestApp, storeKinds, type TestApp } from "../test-support/harness.js";
import { loadTeamAndOrg } from "../store/admission.js";
import { findOrgUsage } from "../store/usage.js";
import type { LaunchRequest } from "./launch-types.js";
import type { DeliveryRecord } from "../store/launch-record.js";

type Seed = Awaited<ReturnType<typeof seedTenancy>>;

const request = (teamId: string, extra: Partial<LaunchRequest> = {}): LaunchRequest => ({
  teamId,
  botId: "review-pr",
  vars: { a: "1" },
  source: "api",
  actor: { userId: null, kind: "user" },
  ...extra,
});

/** The month's run count as the gate and the usage view read it. */
async function orgRuns(t: TestApp, orgId: string): Promise<number> {
  return (await findOrgUsage(t.store.db, orgId, monthOf(t.clock.now()))).runs;
}

async function runCount(t: TestApp, teamId: string): Promise<number> {
  return (await t.store.db.selectFrom("runs").select("id").where("team_id", "=", teamId).execute()).length;
}

async function newTeam(_t: TestApp, s: Seed, orgId: string, body: Record<string, unknown> = {}) {
  return (await s.admin.post(`/api/orgs/${orgId}/teams`, { name: `t${Math.random()}`, ...body })).body as { id: string; org_id: string };
}

/** A delivery's launch, its row as data, through this app's launcher and ledger. */
function launchRecorded(t: TestApp, request: LaunchRequest, record: DeliveryRecord) {
  return t.services.launcher.launch(request, { record });
}

async function newOrg(s: Seed, body: Record<string, unknown> = {}) {
  return (await s.admin.post("/api/admin/orgs", { name: `o${Math.random()}`, ...body })).body as { id: string };
}

describe.each(storeKinds())("Launcher on %s", (kind) => {
  let t: TestApp;
  let s: Seed;

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
  });
  afterAll(() => t.close());

  it("admits exactly MaxConcurrentRuns of 200 simultaneous launches and writes nothing for the rest", async () => {
    const org = await newOrg(s);
    const team = await newTeam(t, s, org.id, { max_concurrent_runs: 5 });
    const results = await Promise.all(Array.from({ length: 200 }, () => t.services.launcher.launch(request(team.id))));
    const launched = results.filter((r) => r.kind === "launched");
    expect(launched).toHaveLength(5);
    const reasons = new Set(results.flatMap((r) => (r.kind === "denied" ? [r.denial.error] : [])));
    expect(reasons).toEqual(new Set(["concurrency_cap_exceeded"]));
    expect(await runCount(t, team.id)).toBe(5);
    expect(await orgRuns(t, org.id)).toBe(5);
  });

  it("admits exactly the 3 runs left under the org's monthly quota, across teams", async () => {
    const org = await newOrg(s, { monthly_run_quota: 10 });
    const a = await newTeam(t, s, org.id);
    const b = await newTeam(t, s, org.id);
    for (let i = 0; i < 7; i++) expect((await t.services.launcher.launch(request(a.id))).kind).toBe("launched");
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => t.services.launcher.launch(request(i % 2 ? a.id : b.id))));
    expect(results.filter((r) => r.kind === "launched")).toHaveLength(3);
    const denied = results.find((r) => r.kind === "denied");
    expect(denied?.kind === "denied" && denied.denial).toMatchObject({ error: "monthly_run_quota_exceeded", status: 402 });
    expect(await orgRuns(t, org.id)).toBe(10);
    expect((await runCount(t, a.id)) + (await runCount(t, b.id))).toBe(10);
  });

  it("spends no launch token on a launch denied at a later step", async () => {
    const org = await newOrg(s, { monthly_run_quota: 1 });
    const team = await newTeam(t, s, org.id, { launch_rate_per_min: 3 });
    expect((await t.services.launcher.launch(request(team.id))).kind).toBe("launched");
    const bucketBefore = await t.store.db.selectFrom("team_launch_buckets").selectAll().where("team_id", "=", team.id).executeTakeFirstOrThrow();
    const r = await t.services.launcher.launch(request(team.id));
    expect(r.kind === "denied" && r.denial.error).toBe("monthly_run_quota_exceeded");
    const bucketAfter = await t.store.db.selectFrom("team_launch_buckets").selectAll().where("team_id", "=", team.id).executeTakeFirstOrThrow();
    expect(bucketAfter).toEqual(bucketBefore);
    expect(await orgRuns(t, org.id)).toBe(1);
    expect(await runCount(t, team.id)).toBe(1);
  });

  it("rate-limits per team with a Retry-After until the next token", async () => {
    const org = await newOrg(s);
    const team = await newTeam(t, s, org.id, { launch_rate_per_min: 2 });
    const other = await newTeam(t, s, org.id, { launch_rate_per_min: 2 });
    const results = await Promise.all(Array.from({ length: 10 }, () => t.services.launcher.launch(request(team.id))));
    expect(results.filter((r) => r.kind === "launched")).toHaveLength(2);
    const denied = results.find((r) => r.kind === "denied");
    expect(denied?.kind === "denied" && denied.denial).toMatchObject({ error: "launch_rate_limited", status: 429, retryAfter: 30 });
    expect((await t.services.launcher.launch(request(other.id))).kind).toBe("launched");
    t.clock.advance(30_000);
    expect((await t.services.launcher.launch(request(team.id))).kind).toBe("launched");
  });

  it("denies a suspended org, but lets a super-admin through and still meters the run", async () => {
    const org = await newOrg(s, { status: "suspended" });
    const team = await newTeam(t, s, org.id);
    const r = await t.services.launcher.launch(request(team.id));
    expect(r.kind === "denied" && r.denial).toMatchObject({ error: "org_suspended", status: 403 });
    expect(await runCount(t, team.id)).toBe(0);
    const bypass = await t.services.launcher.launch(request(team.id, { bypassGate: true }));
    expect(bypass.kind).toBe("launched");
    expect(await orgRuns(t, org.id)).toBe(1);
  });

  it("hands the slot back exactly once when a launch fails after admission", async () => {
    const org = await newOrg(s);
    const team = await newTeam(t, s, org.id);
    const r = await t.services.launcher.launch(request(team.id));
    if (r.kind !== "launched") throw new Error("not launched");
    expect(await orgRuns(t, org.id)).toBe(1);
    await Promise.all([t.services.launcher.failAfterAdmission(r.run.id, "publish failed"), t.services.launcher.failAfterAdmission(r.run.id, "again")]);
    await t.services.launcher.failAfterAdmission(r.run.id, "and again");
    expect(await orgRuns(t, org.id)).toBe(0);
    const run = await t.store.db.selectFrom("runs").selectAll().where("id", "=", r.run.id).executeTakeFirstOrThrow();
    expect(run).toMatchObject({ status: "failed", failure_code: "LAUNCH_FAILED", metered: 0 });
  });

  it("commits a surface's record with the launch, and answers a lost race as taken with everything rolled back", async () => {
    const org = await newOrg(s, { monthly_run_quota: 5 });
    const team = await newTeam(t, s, org.id, { launch_rate_per_min: 10 });
    const sub = (await s.admin.post("/api/v1/triggers", { team_id: team.id, name: "sub", event: "e", bot: "review-pr" })).body as { id: string };
    const record = { trigger: { teamId: team.id, subscriptionId: sub.id, key: "emit-1" } };
    const ok = await t.services.launcher.launch(request(team.id), { record });
    if (ok.kind !== "launched") throw new Error(`not launched: ${ok.kind}`);
    expect(await t.store.db.selectFrom("trigger_launches").select("run_id").where("team_id", "=", team.id).execute()).toEqual([{ run_id: ok.run.id }]);
    const subscription = t.store.db.selectFrom("trigger_subscriptions").select("last_run_id").where("id", "=", sub.id);
    expect(await subscription.executeTakeFirst()).toEqual({ last_run_id: ok.run.id });
    const bucket = await t.store.db.selectFrom("team_launch_buckets").selectAll().where("team_id", "=", team.id).executeTakeFirstOrThrow();

    // The key held: the launch, its bucket token and its count are rolled back with the record.
    expect(await t.services.launcher.launch(request(team.id), { record })).toEqual({ kind: "taken", holder: undefined, recorded: false });
    expect(await runCount(t, team.id)).toBe(1);
    expect(await orgRuns(t, org.id)).toBe(1);
    expect(await t.store.db.selectFrom("team_launch_buckets").selectAll().where("team_id", "=", team.id).executeTakeFirstOrThrow()).toEqual(bucket);
    expect(await subscription.executeTakeFirst()).toEqual({ last_run_id: ok.run.id });

    // A resume's record: an answer to no question is a lost race too, and the run stays failed.
    await t.services.launcher.failAfterAdmission(ok.run.id, "x");
    const resumed = await t.services.launcher.resume(ok.run.id, { userId: null, kind: "user" }, false, { record: { answer: "yes" } });
    expect(resumed).toEqual({ kind: "taken", holder: undefined, recorded: false });
    expect(await t.store.db.selectFrom("runs").select(["status", "attempt"]).where("id", "=", ok.run.id).executeTakeFirst()).toEqual({
      status: "failed",
      attempt: 1,
    });
  });

  it.each([
    ["no limit set (one statement on PostgreSQL)", {}, {}],
    ["a limit set (the gate's transaction)", { max_concurrent_runs: 10 }, {}],
    ["a gate bypass (the key read in the gate's transaction)", {}, { bypassGate: true }],
  ])(
    "commits a recorded delivery row with its run and counter; a held key launches nothing, a key lost in a race stores nothing: %s",
    async (_, limits, extra) => {
      const org = await newOrg(s);
      const team = await newTeam(t, s, org.id, limits);
      const hook = (await s.admin.post(`/api/teams/${team.id}/webhooks`, { provider: "generic", name: "h" })).body.config;
      const delivery = (id: string) => ({
        id: `${id}_${team.id}`,
        tenant_id: team.id,
        webhook_id: hook.id,
        provider: "generic" as const,
        status: "launched" as const,
        idempotency_key: "k1",
        run_id: null,
        attempts: 1,
        created_at: t.clock.now(),
        updated_at: t.clock.now(),
        launched_at: t.clock.now(),
      });
      const recorded = (id: string): DeliveryRecord => ({ insert: delivery(id) });
      const first = await launchRecorded(t, request(team.id, extra), recorded("dlv_a"));
      if (first.kind !== "launched") throw new Error("not launched");
      expect(first.run).toMatchObject({ metered: 1, metered_attempt: 1, org_id: org.id });
      const stored = await t.store.db.selectFrom("webhook_deliveries").selectAll().where("id", "=", `dlv_a_${team.id}`).executeTakeFirstOrThrow();
      expect(stored).toMatchObject({ run_id: first.run.id, status: "launched", idempotency_key: "k1", attempts: 1 });
      expect(await t.store.db.selectFrom("runs").select(["status", "metered"]).where("id", "=", first.run.id).executeTakeFirst()).toEqual({
        status: "queued",
        metered: 1,
      });

      // The key held: nothing launched, the holder answered.
      const again = await launchRecorded(t, request(team.id, extra), recorded("dlv_b"));
      expect(again.kind === "taken" && again.holder).toMatchObject({ id: `dlv_a_${team.id}`, run_id: first.run.id });
      expect(await runCount(t, team.id)).toBe(1);
      expect(await orgRuns(t, org.id)).toBe(1);

      // Two at once under a new key: one launches; the other finds the key taken, or loses it
      // between its check and its write, and then nothing of it is stored.
      const racing = (id: string): DeliveryRecord => ({ insert: { ...delivery(id), idempotency_key: "k2" } });
      const outcomes = await Promise.all([
        launchRecorded(t, request(team.id, extra), racing("dlv_c")),
        launchRecorded(t, request(team.id, extra), racing("dlv_d")),
      ]);
      expect(outcomes.map((o) => o.kind).sort()).toEqual(["launched", "taken"]);
      expect(await runCount(t, team.id)).toBe(2);
      expect(await orgRuns(t, org.id)).toBe(2);
    },
  );

  // Taken for ungated (as a target read before the limit was set), the ledger hands each of these
  // to the gate's transaction: every check of the gate's table still denies, and nothing is written.
  it.each([
    ["org suspended", { status: "suspended" }, {}, 0, "org_suspended"],
    ["MaxConcurrentRuns reached", {}, { max_concurrent_runs: 1 }, 1, "concurrency_cap_exceeded"],
    ["launch rate spent", {}, { launch_rate_per_min: 1 }, 1, "launch_rate_limited"],
    ["monthly cost cap reached", { monthly_cost_cap_usd: 1 }, {}, 0, "monthly_cost_cap_exceeded"],
    ["monthly run quota used", { monthly_run_quota: 1 }, {}, 1, "monthly_run_quota_exceeded"],
  ] as const)("denies a recorded launch when %s, and writes the denial on its row alone", async (_, orgBody, teamBody, before, error) => {
    const org = await newOrg(s, orgBody);
    const team = await newTeam(t, s, org.id, teamBody);
    for (let i = 0; i < before; i++) expect((await t.services.launcher.launch(request(team.id))).kind).toBe("launched");
    if ("monthly_cost_cap_usd" in orgBody) {
      await t.store.db
        .insertInto("org_usage")
        .values({
          org_id: org.id,
          month: monthOf(t.clock.now()),
          cost_micro: 1_000_000,
          input_tokens: 0,
          output_tokens: 0,
          aggregate_tokens: 0,
          updated_at: t.clock.now(),
        })
        .execute();
    }
    const hook = (await s.admin.post(`/api/teams/${team.id}/webhooks`, { provider: "generic", name: "h" })).body.config;
    const r = await launchRecorded(t, request(team.id), {
      insert: {
        id: `dlv_denied_${team.id}`,
        tenant_id: team.id,
        webhook_id: hook.id,
        provider: "generic" as const,
        status: "launched" as const,
        idempotency_key: "k-denied",
        attempts: 1,
        created_at: t.clock.now(),
        updated_at: t.clock.now(),
      },
    });
    expect(r.kind === "denied" && r.denial.error).toBe(error);
    expect(await runCount(t, team.id)).toBe(before);
    // The denial is written on the row, in the gate's transaction.
    expect(
      await t.store.db.selectFrom("webhook_deliveries").select(["id", "status", "denial_reason", "run_id"]).where("tenant_id", "=", team.id).execute(),
    ).toEqual([{ id: `dlv_denied_${team.id}`, status: "launch_error", denial_reason: error, run_id: null }]);
  });

  // On PostgreSQL a recorded launch that no limit locks counts on one of the org's tallies
  // (migration 0011): a quota set later, and a hand-back, take the whole count.
  it("counts recorded launches toward a run quota set later, and hands one back from the whole count", async () => {
    const org = await newOrg(s);
    const team = await newTeam(t, s, org.id);
    const hook = (await s.admin.post(`/api/teams/${team.id}/webhooks`, { provider: "generic", name: "h" })).body.config;
    const launch = (key: string) =>
      launchRecorded(t, request(team.id), {
        insert: {
          id: `dlv_${key}_${team.id}`,
          tenant_id: team.id,
          webhook_id: hook.id,
          provider: "generic" as const,
          status: "launched" as const,
          idempotency_key: key,
          attempts: 1,
          created_at: t.clock.now(),
          updated_at: t.clock.now(),
        },
      });
    const first = await launch("q1");
    for (const key of ["q2", "q3"]) expect((await launch(key)).kind).toBe("launched");
    expect(await orgRuns(t, org.id)).toBe(3);
    if (first.kind !== "launched") throw new Error("not launched");
    await t.services.launcher.failAfterAdmission(first.run.id, "x");
    expect(await orgRuns(t, org.id)).toBe(2);

    expect((await s.admin.patch(`/api/admin/orgs/${org.id}`, { monthly_run_quota: 3 })).status).toBe(200);
    expect((await launch("q4")).kind).toBe("launched");
    const over = await launch("q5");
    expect(over.kind === "denied" && over.denial.error).toBe("monthly_run_quota_exceeded");
    expect(await orgRuns(t, org.id)).toBe(3);
  });

  it("resumes a failed run as a new, metered attempt; a queued run cannot be resumed", async () => {
    const org = await newOrg(s);
    const team = await newTeam(t, s, org.id);
    const r = await t.services.launcher.launch(request(team.id));
    if (r.kind !== "launched") throw new Error("not launched");
    await expect(t.services.launcher.resume(r.run.id, { userId: null, kind: "user" }, false)).rejects.toMatchObject({ code: "conflict" });
    await t.services.launcher.failAfterAdmission(r.run.id, "x");
    const resumed = await t.services.launcher.resume(r.run.id, { userId: null, kind: "user" }, false);
    expect(resumed.kind === "launched" && resumed.run).toMatchObject({ status: "queued", attempt: 2, metered: 1, metered_attempt: 2, source: "resume" });
    expect(await orgRuns(t, org.id)).toBe(1);
  });

  // PostgreSQL alone: SQLite serialises writers, so a held transaction holds up every launch.
  if (kind === "postgres")
    it("does not hold up the launch of a team without limits while a gated launch of its org holds the gate's locks", async () => {
      const org = await newOrg(s);
      const gated = await newTeam(t, s, org.id, { max_concurrent_runs: 5 });
      const free = await newTeam(t, s, org.id);
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const gate = t.store.tx(async (tx) => {
        await loadTeamAndOrg(tx, gated.id, () => true);
        locked();
        await released;
      });
      await isLocked;
      // The free team's run checks its org's key (FOR KEY SHARE) while the gate holds the org.
      const launched = t.services.launcher.launch(request(free.id));
      const outcome = await Promise.race([launched, new Promise<"waiting">((resolve) => setTimeout(() => resolve("waiting"), 2000))]);
      release();
      await gate;
      await launched;
      expect(outcome === "waiting" ? outcome : outcome.kind).toBe("launched");
    });
});

describe.each(storeKinds())("Launcher failing open on %s", (kind) => {
  let t: TestApp;
  let s: Seed;

  beforeAll(async () => {
    // A launch-rate limit makes the gate read the bucket table the test then drops.
    t = await startTestApp(kind, { SERVICE_ORG_DEFAULT_MAX_CONCURRENT_RUNS: "1", SERVICE_ORG_DEFAULT_LAUNCH_RATE_PER_MIN: "100" });
    s = await seedTenancy(t);
  });
  afterAll(() => t.close());

  it("launches unmetered and counts the gate error when the gate's store reads fail", async () => {
    await t.store.db.schema.dropTable("team_launch_buckets").execute();
    const r1 = await t.services.launcher.launch(request(s.team.id));
    const r2 = await t.services.launcher.launch(request(s.team.id));
    // Both proceed although the default limit is 1 concurrent run: the gate could not decide.
    expect([r1.kind, r2.kind]).toEqual(["launched", "launched"]);
    expect(r1.kind === "launched" && r1.run.metered).toBe(0);
    expect(r1.kind === "launched" && r1.metered).toBe(false);
    expect(await orgRuns(t, s.org.id)).toBe(0);
    const errors = (await t.services.metrics.launchGateErrors.get()).values;
    expect(errors.reduce((n, v) => n + v.value, 0)).toBe(2);
    expect(t.logs.join("")).toContain("failing open");
  });

  it("a recorded launch failing open admits its call once and writes its row with the run", async () => {
    await t.store.db.schema.dropTable("team_launch_buckets").ifExists().execute();
    const now = t.clock.now();
    const admission = { webhookId: "whk_open", orgId: s.org.id, rate: 1, burst: 10, orgMonthlyCalls: 0, webhookMonthlyCalls: 0, month: monthOf(now), now };
    const r = await launchRecorded(t, request(s.team.id), {
      admission,
      insert: {
        id: "dlv_open",
        tenant_id: s.team.id,
        webhook_id: "whk_open",
        provider: "generic" as const,
        status: "launched" as const,
        idempotency_key: "k-open",
        attempts: 1,
        created_at: now,
        updated_at: now,
      },
    });
    if (r.kind !== "launched") throw new Error(`not launched: ${r.kind}`);
    expect(r.metered).toBe(false);
    expect(await monthlyWebhookCalls(t.store.db, "webhook:whk_open", monthOf(now))).toBe(1);
    expect(await t.store.db.selectFrom("webhook_deliveries").select("run_id").where("id", "=", "dlv_open").executeTakeFirst()).toEqual({ run_id: r.run.id });
  });
});
