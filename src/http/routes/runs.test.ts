import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";

type Seed = Awaited<ReturnType<typeof seedTenancy>>;

/** Earlier tests leave queued runs behind; a test that claims wants its own run first in line. */
async function clearQueue(t: TestApp) {
  await t.store.db.updateTable("runs").set({ status: "cancelled" }).where("status", "=", "queued").execute();
}

describe.each(storeKinds())("runs API on %s", (kind) => {
  let t: TestApp;
  let s: Seed;

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
  });
  afterAll(() => t.close());

  const team = async (body: Record<string, unknown> = {}, orgBody: Record<string, unknown> = {}) => {
    const org = (await s.admin.post("/api/admin/orgs", { name: "O", ...orgBody })).body;
    const tm = (await s.admin.post(`/api/orgs/${org.id}/teams`, { name: "T", ...body })).body;
    await s.admin.put(`/api/teams/${tm.id}/members/${s.member.id}`, { role: "member" });
    return { org, team: tm };
  };

  it("lets a team member launch a run: 201 with the queued run", async () => {
    const r = await s.member.api.post("/api/runs", {
      team_id: s.team.id,
      bot: "review-pr",
      vars: { pr_url: "https://forge.example/a/b/pull/1" },
      repo_url: "https://forge.example/a/b.git",
      repo_ref: "main",
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      status: "queued",
      team_id: s.team.id,
      org_id: s.org.id,
      bot_id: "review-pr",
      vars: { pr_url: "https://forge.example/a/b/pull/1" },
      repo_url: "https://forge.example/a/b.git",
      repo_ref: "main",
      source: "api",
      actor: { user_id: s.member.id, kind: "user" },
      attempt: 1,
    });
    expect(r.body.id).toMatch(/^run_/);
    expect(r.body.created_at).toBe(new Date(t.clock.now()).toISOString());
    expect((await s.member.api.get(`/api/runs/${r.body.id}`)).body).toMatchObject({ id: r.body.id, attempts: [], usage: { cost_usd: 0 } });
  });

  it("refuses unknown bots, bad variables and unknown fields with 400", async () => {
    const bad = (body: Record<string, unknown>) => s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr", ...body });
    expect((await bad({ bot: "no-such-bot" })).body).toMatchObject({ error: "invalid_request", field: "bot" });
    expect((await bad({ vars: { "1bad": "x" } })).status).toBe(400);
    expect((await bad({ vars: { ok: 5 } })).status).toBe(400);
    expect((await bad({ vars: { big: "x".repeat(4097) } })).status).toBe(400);
    // 4 KiB counts UTF-8 bytes, as the generic intake does: 2,049 characters of two bytes each.
    expect((await bad({ vars: { wide: "é".repeat(2049) } })).body).toMatchObject({ error: "invalid_request", field: "vars.wide" });
    expect((await bad({ vars: { wide: "é".repeat(2048) } })).status).toBe(201);
    expect((await bad({ colour: "red" })).body).toMatchObject({ field: "colour" });
  });

  it.each([
    [{ repo_url: "https://forge.example/a\u0000.git" }, "repo_url"],
    [{ repo_ref: "main\u0000" }, "repo_ref"],
    [{ project_path: "\u0000acme/app" }, "project_path"],
    [{ vars: { ok: "x", title: "a\u0000b" } }, "vars.title"],
    [{ bot: "review-pr\u0000" }, "bot"],
  ])("refuses a NUL character with 400 naming the field, and queues nothing: %j", async (body, field) => {
    const before = (await s.member.api.get(`/api/teams/${s.team.id}/runs`)).body.runs.length;
    const r = await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr", ...body });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "invalid_request", detail: `${field} contains a NUL character`, field, request_id: expect.any(String) });
    expect((await s.member.api.get(`/api/teams/${s.team.id}/runs`)).body.runs).toHaveLength(before);
  });

  it("launches the org's own registered bots, as the webhooks do (the bot catalog decides)", async () => {
    expect((await s.admin.post(`/api/orgs/${s.org.id}/bots`, { id: "triage-bot", name: "Triage" })).status).toBe(201);
    const r = await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "triage-bot" });
    expect(r.status).toBe(201);
    expect(r.body.bot_id).toBe("triage-bot");
    await t.store.db.updateTable("runs").set({ status: "cancelled" }).where("id", "=", r.body.id).execute();
  });

  it("hides other teams' runs: launch, read, list, cancel, delete answer 404 with nothing of the run, and change nothing", async () => {
    const run = (await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "converse", vars: { secret_topic: "merger" } })).body;
    const own = (await s.outsider.api.post("/api/runs", { team_id: s.otherTeam.id, bot: "converse" })).body;
    const runGone = { error: "not_found", detail: "run not found", request_id: expect.any(String) };
    const hidden = [
      await s.outsider.api.post("/api/runs", { team_id: s.team.id, bot: "converse" }),
      await s.outsider.api.get(`/api/runs/${run.id}`),
      await s.outsider.api.get(`/api/teams/${s.team.id}/runs`),
      await s.outsider.api.post(`/api/runs/${run.id}/cancel`),
      await s.outsider.api.post(`/api/runs/${run.id}/resume`),
      await s.outsider.api.delete(`/api/runs/${run.id}`),
    ];
    expect(hidden.map((r) => [r.status, r.body])).toEqual([
      [404, { error: "not_found", detail: "team not found", request_id: expect.any(String) }],
      [404, runGone],
      [404, { error: "not_found", detail: "team not found", request_id: expect.any(String) }],
      [404, runGone],
      [404, runGone],
      [404, runGone],
    ]);
    for (const r of hidden) expect(JSON.stringify(r.body)).not.toMatch(new RegExp(`${run.id}|merger|${s.team.id}`));
    // The outsider's own team lists its own run alone.
    expect((await s.outsider.api.get(`/api/teams/${s.otherTeam.id}/runs`)).body.runs.map((r: { id: string }) => r.id)).toEqual([own.id]);
    // Nothing changed: still queued, not cancelled, still there.
    expect((await s.member.api.get(`/api/runs/${run.id}`)).body).toMatchObject({ id: run.id, status: "queued", cancel_requested: false });
    expect((await s.member.api.get(`/api/teams/${s.team.id}/runs`)).body.runs.filter((r: { team_id: string }) => r.team_id !== s.team.id)).toEqual([]);
    const seen = await s.orgAdmin.api.get(`/api/runs/${run.id}`);
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ id: run.id, team_id: s.team.id, org_id: s.org.id, vars: { secret_topic: "merger" } });
    expect(await s.member.api.get("/api/runs/run_missing")).toMatchObject({ status: 404, body: runGone });
    await t.services.runQueue.cancel(run.id);
    await t.services.runQueue.cancel(own.id);
  });

  it("lists a team's runs newest first, by status, with a limit", async () => {
    const { team: tm } = await team();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await s.member.api.post("/api/runs", { team_id: tm.id, bot: "improve" })).body.id);
      t.clock.advance(1000);
    }
    await s.member.api.post(`/api/runs/${ids[0]}/cancel`);
    const all = (await s.member.api.get(`/api/teams/${tm.id}/runs`)).body.runs.map((r: { id: string }) => r.id);
    expect(all).toEqual([...ids].reverse());
    const queued = (await s.member.api.get(`/api/teams/${tm.id}/runs?status=queued&limit=1`)).body.runs;
    expect(queued.map((r: { id: string }) => r.id)).toEqual([ids[2]]);
    expect((await s.member.api.get(`/api/teams/${tm.id}/runs?status=cancelled`)).body.runs.map((r: { id: string }) => r.id)).toEqual([ids[0]]);
    expect((await s.member.api.get(`/api/teams/${tm.id}/runs?status=lost`)).status).toBe(400);
  });

  it("admits exactly 5 of 200 parallel POST /api/runs for a team capped at 5; the rest get 429 with Retry-After 30", async () => {
    const { org, team: tm } = await team({ max_concurrent_runs: 5 });
    const replies = await Promise.all(Array.from({ length: 200 }, () => s.member.api.post("/api/runs", { team_id: tm.id, bot: "review-pr" })));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(5);
    const denied = replies.filter((r) => r.status !== 201);
    expect(denied).toHaveLength(195);
    for (const r of denied) {
      expect(r.status).toBe(429);
      expect(r.headers["retry-after"]).toBe("30");
      expect(Object.keys(r.body).sort()).toEqual(["detail", "error"]);
      expect(r.body.error).toBe("concurrency_cap_exceeded");
    }
    expect((await s.member.api.get(`/api/teams/${tm.id}/runs`)).body.runs).toHaveLength(5);
    expect((await s.admin.get(`/api/admin/orgs/${org.id}/usage`)).body.runs_this_month).toBe(5);
  });

  it("answers each denial with the spec's status, token and envelope", async () => {
    const suspended = await team({}, { status: "suspended" });
    const r403 = await s.member.api.post("/api/runs", { team_id: suspended.team.id, bot: "review-pr" });
    expect(r403.status).toBe(403);
    expect(r403.body).toEqual({ error: "org_suspended", detail: expect.any(String) });

    const rate = await team({ launch_rate_per_min: 1 });
    expect((await s.member.api.post("/api/runs", { team_id: rate.team.id, bot: "review-pr" })).status).toBe(201);
    const r429 = await s.member.api.post("/api/runs", { team_id: rate.team.id, bot: "review-pr" });
    expect(r429.status).toBe(429);
    expect(r429.body.error).toBe("launch_rate_limited");
    expect(r429.headers["retry-after"]).toBe("60");

    const quota = await team({}, { monthly_run_quota: 1 });
    expect((await s.member.api.post("/api/runs", { team_id: quota.team.id, bot: "review-pr" })).status).toBe(201);
    const r402 = await s.member.api.post("/api/runs", { team_id: quota.team.id, bot: "review-pr" });
    expect(r402.status).toBe(402);
    expect(r402.body).toEqual({ error: "monthly_run_quota_exceeded", detail: expect.any(String), reset_at: "2026-12-01T00:00:00.000Z" });

    const metrics = (await t.app.inject({ method: "GET", url: "/metrics" })).body;
    expect(metrics).toMatch(/service_launch_denied_total\{reason="monthly_run_quota_exceeded"\} [1-9]/);
    expect(metrics).toMatch(/service_launch_denied_total\{reason="org_suspended"\} [1-9]/);
  });

  it("lets a super-admin launch past the gate; the run still counts", async () => {
    const { org, team: tm } = await team({}, { status: "suspended" });
    expect((await s.admin.post("/api/runs", { team_id: tm.id, bot: "review-pr" })).status).toBe(201);
    expect((await s.admin.get(`/api/admin/orgs/${org.id}/usage`)).body.runs_this_month).toBe(1);
  });

  it("resumes only failed runs, as a gated and metered new attempt", async () => {
    const { org, team: tm } = await team({}, { monthly_run_quota: 2 });
    const run = (await s.member.api.post("/api/runs", { team_id: tm.id, bot: "review-pr" })).body;
    expect((await s.member.api.post(`/api/runs/${run.id}/resume`)).status).toBe(409);
    await t.services.launcher.failAfterAdmission(run.id, "queue publish failed");
    expect((await s.member.api.get(`/api/runs/${run.id}`)).body).toMatchObject({ status: "failed", failure_code: "LAUNCH_FAILED" });
    const resumed = await s.member.api.post(`/api/runs/${run.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ id: run.id, status: "queued", attempt: 2, failure_code: null, source: "resume" });
    expect((await s.admin.get(`/api/admin/orgs/${org.id}/usage`)).body.runs_this_month).toBe(1);
    // Fill the quota, fail the run again: the resume is now refused by the gate.
    expect((await s.member.api.post("/api/runs", { team_id: tm.id, bot: "review-pr" })).status).toBe(201);
    await s.member.api.post(`/api/runs/${run.id}/cancel`);
    expect((await s.member.api.post(`/api/runs/${run.id}/resume`)).status).toBe(409);
    const other = (await s.member.api.get(`/api/teams/${tm.id}/runs?status=queued`)).body.runs[0];
    await t.services.launcher.failAfterAdmission(other.id, "x");
    expect((await s.member.api.post("/api/runs", { team_id: tm.id, bot: "review-pr" })).status).toBe(201);
    await t.services.launcher.failAfterAdmission((await s.member.api.get(`/api/teams/${tm.id}/runs?status=queued`)).body.runs[0].id, "y");
    expect((await s.member.api.post(`/api/runs/${other.id}/resume`)).status).toBe(200);
    const denied = await s.member.api.post(`/api/runs/${(await s.member.api.get(`/api/teams/${tm.id}/runs?status=failed`)).body.runs[0].id}/resume`);
    expect(denied.status).toBe(402);
    expect(denied.body.error).toBe("monthly_run_quota_exceeded");
  });

  it("cancels a queued run at once", async () => {
    const run = (await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr" })).body;
    const r = await s.member.api.post(`/api/runs/${run.id}/cancel`);
    expect(r.body).toMatchObject({ status: "cancelled", cancel_requested: true });
  });

  it("stops every active run bound to a subject or its parent", async () => {
    const { team: tm } = await team();
    await clearQueue(t);
    const launch = (subjectId: string | null, parentSubjectId: string | null) =>
      t.services.launcher.launch({
        teamId: tm.id,
        botId: "review-pr",
        vars: {},
        subjectId,
        parentSubjectId,
        source: "webhook",
        actor: { userId: null, kind: "webhook" },
      });
    for (const [subject, parent] of [
      ["pr:1", null],
      ["note:9", "pr:1"],
      ["pr:2", null],
    ] as const) {
      await launch(subject, parent);
      t.clock.advance(1); // claims take the oldest first
    }
    const claimed = await t.services.runQueue.claim("w", 60_000);
    expect(claimed?.run.subject_id).toBe("pr:1");
    expect(await t.services.runQueue.stopBySubject(tm.id, "pr:1")).toEqual({ cancelled: 1, cancelRequested: 1, retriesDisarmed: 0 });
    expect(await t.services.runQueue.heartbeat(claimed!.run.id, claimed!.claimToken, 60_000)).toEqual({ held: true, cancelRequested: true });
    const queued = (await s.member.api.get(`/api/teams/${tm.id}/runs?status=queued`)).body.runs;
    expect(queued.map((r: { subject_id: string }) => r.subject_id)).toEqual(["pr:2"]);
    await t.services.runQueue.cancel(queued[0].id);
    await t.services.runQueue.finish(claimed!, { status: "cancelled" });
  });

  it("deletes a run and all its data; a team admin may, a member may not", async () => {
    await clearQueue(t);
    const r = await t.services.launcher.launch({ teamId: s.team.id, botId: "review-pr", vars: {}, source: "api", actor: { userId: null, kind: "user" } });
    if (r.kind !== "launched") throw new Error("denied");
    const claim = (await t.services.runQueue.claim("w", 60_000))!;
    expect(claim.run.id).toBe(r.run.id);
    await t.services.runQueue.finish(claim, { status: "succeeded" }, [
      {
        reportId: "1:a",
        costMicro: 10,
        inputTokens: 1,
        outputTokens: 1,
        aggregateTokens: 0,
        fingerprint: null,
        provider: null,
        tier: null,
        repo: null,
        amountType: "metered",
      },
    ]);
    const id = claim.run.id;
    const refused = await s.member.api.delete(`/api/runs/${id}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: "forbidden", detail: expect.any(String), request_id: expect.any(String) });
    expect((await s.member.api.get(`/api/runs/${id}`)).body).toMatchObject({ id, status: "succeeded", usage: { reports: 1 } });
    expect((await s.teamAdmin.api.delete(`/api/runs/${id}`)).status).toBe(204);
    expect((await s.member.api.get(`/api/runs/${id}`)).status).toBe(404);
    for (const table of ["run_attempts", "run_usage_events"] as const) {
      expect(await t.store.db.selectFrom(table).select("run_id").where("run_id", "=", id).execute()).toEqual([]);
    }
    expect((await s.teamAdmin.api.delete(`/api/runs/${id}`)).status).toBe(404);
  });
});
