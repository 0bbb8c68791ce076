import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../config/logger.js";
import { Metering, type UsageReport } from "../../metering/metering.js";
import { client, seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";

type Seed = Awaited<ReturnType<typeof seedTenancy>>;

const report = (over: Partial<UsageReport>): UsageReport => ({
  reportId: "1:r",
  costMicro: 0,
  inputTokens: 0,
  outputTokens: 0,
  aggregateTokens: 0,
  fingerprint: null,
  provider: null,
  tier: null,
  repo: null,
  amountType: "metered",
  ...over,
});

describe.each(storeKinds())("usage views on %s", (kind) => {
  let t: TestApp;
  let s: Seed;
  let stranger: ReturnType<typeof client>;

  /** Launches a run in the team and records its usage reports, as a runner would at the end of an attempt. */
  const spend = async (teamId: string, reports: Partial<UsageReport>[]) => {
    const r = await t.services.launcher.launch({ teamId, botId: "review-pr", vars: {}, source: "api", actor: { userId: null, kind: "user" } });
    if (r.kind !== "launched") throw new Error("denied");
    for (const [i, over] of reports.entries())
      await new Metering({ store: t.store, clock: t.clock, log: createLogger("silent") }).record(r.run.id, 1, report({ reportId: `1:${i}`, ...over }));
  };

  /**
   * A second org with what every view counts: a running and a queued run, spend on the same
   * credential and repository names as Acme's, a delivery, keys, a secret and a bot. Every test
   * that reads a view checks that none of it shows up in Acme's.
   */
  const seedRival = async () => {
    const org = (await s.admin.post("/api/admin/orgs", { name: "Rival" })).body;
    const team = (await s.admin.post(`/api/orgs/${org.id}/teams`, { name: "Rival team" })).body;
    await spend(team.id, [
      {
        fingerprint: "fp-shared",
        provider: "anthropic",
        tier: "platform",
        repo: "acme/app",
        costMicro: 4_000_000,
        inputTokens: 1000,
        outputTokens: 100,
        aggregateTokens: 1000,
      },
      { fingerprint: "fp-team", provider: "openai", tier: "team", repo: "acme/app", costMicro: 30_000, amountType: "estimate" },
    ]);
    expect((await t.services.runQueue.claim("w", 60_000))?.run.team_id).toBe(team.id);
    const hook = (await s.admin.post(`/api/teams/${team.id}/webhooks`, { provider: "generic", bot_ids: ["review-pr"] })).body;
    const delivered = await t.app.inject({
      method: "POST",
      url: `/api/webhooks/generic/${hook.config.id}`,
      payload: { bot: "review-pr" },
      headers: { "x-service-webhook-token": hook.token },
    });
    expect(delivered.json()).toMatchObject({ status: "launched" });
    expect((await s.admin.post(`/api/orgs/${org.id}/bots`, { id: "rival-bot", name: "Rival" })).status).toBe(201);
    expect((await s.admin.post(`/api/orgs/${org.id}/keys`, { provider: "anthropic", name: "Shared", secret: "sk-rival" })).status).toBe(201);
    expect((await s.admin.post(`/api/teams/${team.id}/keys`, { provider: "openai", name: "Own", secret: "sk-rival-2" })).status).toBe(201);
    expect((await s.admin.post(`/api/teams/${team.id}/secrets`, { name: "TOKEN", value: "v" })).status).toBe(201);
    return { org, team };
  };
  let rival: Awaited<ReturnType<typeof seedRival>>;

  beforeAll(async () => {
    t = await startTestApp(kind, { SERVICE_ORG_DEFAULT_MONTHLY_RUN_QUOTA: "50", SERVICE_ORG_DEFAULT_MAX_CONCURRENT_RUNS: "4" });
    s = await seedTenancy(t);
    rival = await seedRival();
    const u = (await s.admin.post("/api/admin/users", { login: "stranger" })).body;
    stranger = client(t.app, (await s.admin.post(`/api/admin/users/${u.id}/tokens`, { name: "t" })).body.token);
    await s.admin.patch(`/api/admin/orgs/${s.org.id}`, { monthly_cost_cap_usd: 12.5, memory_quota_bytes: 2048 });
    await s.admin.patch(`/api/teams/${s.team.id}`, { max_concurrent_runs: 9 });

    const fp = { fingerprint: "fp-shared", provider: "anthropic", tier: "platform" as const };
    await spend(s.team.id, [
      { ...fp, repo: "acme/app", costMicro: 1_000_000, inputTokens: 100, outputTokens: 10, amountType: "metered" },
      { ...fp, repo: "acme/lib", costMicro: 250_000, inputTokens: 50, outputTokens: 5, amountType: "estimate" },
    ]);
    await spend(s.otherTeam.id, [
      { ...fp, repo: null, costMicro: 500_000, inputTokens: 10, outputTokens: 1, aggregateTokens: 99 },
      { fingerprint: "fp-team", provider: "openai", tier: "team", repo: "acme/app", costMicro: 2_000 },
      // Cannot be attributed: charged to the org, to no credential.
      { fingerprint: null, tier: null, costMicro: 7 },
    ]);
  });
  afterAll(() => t.close());

  it("shows every usage field to any org member, with effective limits", async () => {
    const r = await s.member.api.get(`/api/orgs/${s.org.id}/usage`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      month: "2026-11",
      scope: "org",
      org: { id: s.org.id, name: "Acme", status: "active" },
      members: 4,
      effective_memory_quota_bytes: 2048,
      monthly_run_quota: 50,
      runs_this_month: 2,
      cost_usd_this_month: 1.752007,
      input_tokens_this_month: 160,
      output_tokens_this_month: 16,
      aggregate_tokens_this_month: 99,
      monthly_cost_cap_usd: 12.5,
      max_concurrent_runs: 4,
      active_runs: 2,
      webhook_calls_this_month: 0,
      memory_used_bytes: 0,
      api_key_count: 0,
      generic_secret_count: 0,
      bot_binding_count: 0,
      webhook_count: 0,
    });
    expect(r.body.teams).toHaveLength(2);
    expect(r.body.teams).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: s.team.id, max_concurrent_runs: 9, active_runs: 1 }),
        expect.objectContaining({ id: s.otherTeam.id, max_concurrent_runs: 4, active_runs: 1 }),
      ]),
    );
  });

  it("shows the second org its own usage, and only its own", async () => {
    const r = (await s.admin.get(`/api/orgs/${rival.org.id}/usage`)).body;
    expect(r).toMatchObject({
      org: { id: rival.org.id },
      members: 0,
      runs_this_month: 2,
      cost_usd_this_month: 4.03,
      input_tokens_this_month: 1000,
      output_tokens_this_month: 100,
      aggregate_tokens_this_month: 1000,
      active_runs: 2,
      webhook_calls_this_month: 1,
      api_key_count: 2,
      generic_secret_count: 1,
      bot_binding_count: 1,
      webhook_count: 1,
    });
    expect(r.teams).toEqual([expect.objectContaining({ id: rival.team.id, active_runs: 2 })]);
  });

  it("counts resources from their own tables", async () => {
    await t.store.db
      .insertInto("org_bots")
      .values({ org_id: s.org.id, id: "triage", name: "Triage", description: "", created_by: null, created_at: 0 })
      .execute();
    await t.store.db
      .insertInto("webhook_call_counters")
      .values({ scope: `org:${s.org.id}`, month: "2026-11", calls: 42 })
      .execute();
    await t.store.db
      .insertInto("webhook_call_counters")
      .values({ scope: `org:${s.org.id}`, month: "2026-10", calls: 7 })
      .execute();
    const r = (await s.member.api.get(`/api/orgs/${s.org.id}/usage`)).body;
    expect(r).toMatchObject({ bot_binding_count: 1, webhook_calls_this_month: 42, api_key_count: 0, generic_secret_count: 0, webhook_count: 0 });
  });

  it("keeps the admin route to super-admins and the org route to org members", async () => {
    expect((await s.admin.get(`/api/admin/orgs/${s.org.id}/usage`)).body).toMatchObject({
      scope: "admin",
      runs_this_month: 2,
      cost_usd_this_month: 1.752007,
      active_runs: 2,
      webhook_count: 0,
      api_key_count: 0,
    });
    expect((await s.member.api.get(`/api/orgs/${rival.org.id}/usage`)).status).toBe(404);
    expect((await s.orgAdmin.api.get(`/api/admin/orgs/${s.org.id}/usage`)).status).toBe(403);
    expect((await s.outsider.api.get(`/api/orgs/${s.org.id}/usage`)).status).toBe(200);
    expect((await stranger.get(`/api/orgs/${s.org.id}/usage`)).status).toBe(404);
    expect((await s.admin.get("/api/admin/orgs/org_missing/usage")).status).toBe(404);
  });

  it("gives the org's month day by day to org members: runs created and spend, every day present, its own only", async () => {
    const r = await s.member.api.get(`/api/orgs/${s.org.id}/usage/daily`);
    expect(r.status).toBe(200);
    const today = new Date(t.clock.now()).toISOString().slice(0, 10);
    expect(r.body.month).toBe(today.slice(0, 7));
    expect(r.body.org_id).toBe(s.org.id);
    const days = r.body.days as { date: string; runs: number; cost_usd: number }[];
    expect(days.map((d) => d.date)).toEqual(Array.from({ length: Number(today.slice(8)) }, (_, i) => `${today.slice(0, 8)}${String(i + 1).padStart(2, "0")}`));
    // The runs and spend of this org's two launches, today; the rival's are not counted.
    expect(days.at(-1)).toEqual({ date: today, runs: 2, cost_usd: 1.752007 });
    expect(days.slice(0, -1).every((d) => d.runs === 0 && d.cost_usd === 0)).toBe(true);
    // The console's page shows the same numbers.
    expect(await t.services.usage.orgDaily((await t.services.authenticate(s.member.token))!, s.org.id)).toEqual(r.body);
  });

  it("gives a past month whole, a later month empty, and refuses a bad month (400) or a stranger (404)", async () => {
    const past = (await s.member.api.get(`/api/orgs/${s.org.id}/usage/daily?month=2026-02`)).body;
    expect(past.days).toHaveLength(28);
    expect(past.days[0]).toEqual({ date: "2026-02-01", runs: 0, cost_usd: 0 });
    expect((await s.member.api.get(`/api/orgs/${s.org.id}/usage/daily?month=2099-01`)).body).toEqual({ month: "2099-01", org_id: s.org.id, days: [] });
    const bad = await s.member.api.get(`/api/orgs/${s.org.id}/usage/daily?month=2026-13`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: "invalid_request", field: "month" });
    expect((await stranger.get(`/api/orgs/${s.org.id}/usage/daily`)).status).toBe(404);
    expect((await s.member.api.get(`/api/orgs/${rival.org.id}/usage/daily`)).status).toBe(404);
    expect((await s.admin.get(`/api/orgs/${rival.org.id}/usage/daily`)).body.days.at(-1)).toMatchObject({ runs: 2, cost_usd: 4.03 });
  });

  it("lists the team's own share, summing repositories unless one is named", async () => {
    const all = (await s.member.api.get(`/api/teams/${s.team.id}/credentials/usage`)).body;
    expect(all).toEqual({
      month: "2026-11",
      scope: { tier: null, fingerprint: null, repo: null, team_id: s.team.id },
      credentials: [
        // Metered and estimated amounts stay apart.
        expect.objectContaining({
          fingerprint: "fp-shared",
          provider: "anthropic",
          tier: "platform",
          metered_usd: 1,
          estimated_usd: 0.25,
          attempts: 2,
          input_tokens: 150,
        }),
      ],
    });
    const app = (await s.member.api.get(`/api/teams/${s.team.id}/credentials/usage?repo=acme/app`)).body;
    expect(app.credentials).toEqual([expect.objectContaining({ repo: "acme/app", metered_usd: 1, estimated_usd: 0 })]);
    expect((await s.member.api.get(`/api/teams/${s.team.id}/credentials/usage?month=2026-10`)).body.credentials).toEqual([]);
    expect((await s.member.api.get(`/api/teams/${s.otherTeam.id}/credentials/usage`)).status).toBe(404);
    expect((await s.member.api.get(`/api/teams/${rival.team.id}/credentials/usage`)).status).toBe(404);
  });

  it("spans tenants in the admin view, both orgs once each, platform tier by default; a repo query never returns unattributed repos", async () => {
    const r = (await s.admin.get("/api/admin/credentials/usage")).body;
    expect(r.scope).toEqual({ tier: "platform", fingerprint: null, repo: null, team_id: null });
    expect(r.credentials).toEqual([
      expect.objectContaining({ fingerprint: "fp-shared", metered_usd: 5.5, estimated_usd: 0.25, tenants: 3, aggregate_tokens: 1099 }),
    ]);
    const team = (await s.admin.get("/api/admin/credentials/usage?tier=team")).body;
    expect(team.credentials).toEqual([expect.objectContaining({ fingerprint: "fp-team", tier: "team", metered_usd: 0.002, estimated_usd: 0.03, tenants: 2 })]);
    const byRepo = (await s.admin.get("/api/admin/credentials/usage?repo=acme/app")).body;
    expect(byRepo.credentials).toEqual([expect.objectContaining({ fingerprint: "fp-shared", metered_usd: 5, tenants: 2 })]);
    const byFp = (await s.admin.get("/api/admin/credentials/usage?fingerprint=fp-shared&month=2026-11")).body;
    expect(byFp.credentials).toHaveLength(1);
  });

  it("refuses bad months, unknown tiers, and fingerprint with repo, with 400", async () => {
    for (const month of ["2026-13", "2026-1", "nov", "2026-11-01", ""]) {
      const r = await s.member.api.get(`/api/teams/${s.team.id}/credentials/usage?month=${month}`);
      expect(r.status, month).toBe(400);
      expect(r.body.field).toBe("month");
    }
    expect((await s.admin.get("/api/admin/credentials/usage?month=2026-00")).status).toBe(400);
    expect((await s.admin.get("/api/admin/credentials/usage?fingerprint=fp-shared&repo=acme/app")).status).toBe(400);
    expect((await s.admin.get("/api/admin/credentials/usage?tier=gold")).body).toMatchObject({ error: "invalid_request", field: "tier" });
    expect((await s.orgAdmin.api.get("/api/admin/credentials/usage")).status).toBe(403);
  });
});
