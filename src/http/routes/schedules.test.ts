import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../config/logger.js";
import { Scheduler } from "../../surfaces/scheduler.js";
import { freshTeam, seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";

const MINUTE = 60_000;

describe.each(storeKinds())("schedules on %s", (kind) => {
  let t: TestApp;
  let s: Seed;

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
  });
  afterAll(() => t.close());

  /** A team of its own per test, so runs and limits do not mix; `teamAdmin` administers it. */
  const freshTeamOf = async (teamBody: Record<string, unknown> = {}, orgBody: Record<string, unknown> = {}) => (await freshTeam(s, teamBody, orgBody)).team;
  const create = (teamId: string, body: Record<string, unknown>) =>
    s.teamAdmin.api.post(`/api/teams/${teamId}/schedules`, { name: "nightly", cron: "0 2 * * *", timezone: "Europe/Berlin", bot: "review-pr", ...body });
  const runsOf = (teamId: string) => t.store.db.selectFrom("runs").selectAll().where("team_id", "=", teamId).orderBy("created_at").execute();
  const sweep = () => t.services.scheduler.sweep();
  const schedule = (teamId: string, id: string) => s.teamAdmin.api.get(`/api/teams/${teamId}/schedules/${id}`);

  it("creates a schedule with its next occurrence in its time zone; members read it, only team admins write", async () => {
    const r = await create(s.team.id, { vars: { target: "main" }, repo_url: "https://forge.example/a/b.git" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      id: expect.stringMatching(/^sch_/),
      team_id: s.team.id,
      name: "nightly",
      cron: "0 2 * * *",
      timezone: "Europe/Berlin",
      bot: "review-pr",
      vars: { target: "main" },
      enabled: true,
      // The test clock reads 2026-11-21 12:00 UTC; 02:00 in Berlin is 01:00 UTC in November.
      next_run_at: "2026-11-22T01:00:00.000Z",
      last_error: null,
      last_error_at: null,
      last_run_id: null,
    });
    expect((await s.member.api.get(`/api/teams/${s.team.id}/schedules`)).body.schedules.map((x: { id: string }) => x.id)).toContain(r.body.id);
    expect((await s.member.api.post(`/api/teams/${s.team.id}/schedules`, { name: "x", cron: "* * * * *", bot: "review-pr" })).status).toBe(403);
    expect((await s.outsider.api.get(`/api/teams/${s.team.id}/schedules`)).status).toBe(404);
    expect((await create(s.team.id, {})).status).toBe(409);
  });

  it.each([
    ["a six-field cron", { cron: "*/5 * * * * *" }, "cron"],
    ["a bad cron", { cron: "61 * * * *" }, "cron"],
    ["an unknown time zone", { timezone: "Mars/Olympus" }, "timezone"],
    ["an unknown bot", { bot: "no-such-bot" }, "bot"],
    ["a bad var key", { vars: { "1x": "y" } }, undefined],
    ["a NUL in repo_ref", { repo_ref: "a\u0000b" }, "repo_ref"],
    ["an unknown field", { colour: "red" }, undefined],
  ])("refuses %s with 400", async (_label, body, field) => {
    const r = await create(s.team.id, { name: `bad ${Math.random()}`, ...body });
    expect(r.status).toBe(400);
    if (field) expect(r.body.field).toBe(field);
  });

  it("launches each due occurrence once under the cloud-scheduler identity, and moves to the next", async () => {
    const team = await freshTeamOf();
    const made = (await create(team.id, { cron: "*/30 * * * *", timezone: "UTC", vars: { depth: "full" } })).body;
    expect(made.next_run_at).toBe("2026-11-21T12:30:00.000Z");
    await sweep();
    expect(await runsOf(team.id)).toEqual([]);
    t.clock.set(Date.parse("2026-11-21T12:30:00Z"));
    await sweep();
    await sweep();
    const [run, ...more] = await runsOf(team.id);
    expect(more).toEqual([]);
    expect(run).toMatchObject({ bot_id: "review-pr", source: "schedule", actor_kind: "cloud-scheduler", actor_user_id: null, metered: 1 });
    expect(JSON.parse(run!.vars)).toEqual({ depth: "full", schedule_id: made.id, scheduled_at: "2026-11-21T12:30:00.000Z" });
    expect((await schedule(team.id, made.id)).body).toMatchObject({
      next_run_at: "2026-11-21T13:00:00.000Z",
      last_run_at: "2026-11-21T12:30:00.000Z",
      last_run_id: run!.id,
      last_error: null,
    });
  });

  it("launches once for a day of missed occurrences, not a burst", async () => {
    const team = await freshTeamOf();
    const made = (await create(team.id, { cron: "0 * * * *", timezone: "UTC" })).body;
    t.clock.set(Date.parse(made.next_run_at) + 24 * 60 * MINUTE + 10 * MINUTE);
    await sweep();
    await sweep();
    expect(await runsOf(team.id)).toHaveLength(1);
    const after = new Date(t.clock.now());
    after.setUTCMinutes(0, 0, 0);
    expect((await schedule(team.id, made.id)).body.next_run_at).toBe(new Date(after.getTime() + 60 * MINUTE).toISOString());
  });

  it("launches an occurrence once when two replicas sweep it together", async () => {
    const team = await freshTeamOf();
    await create(team.id, { cron: "*/5 * * * *", timezone: "UTC" });
    const other = new Scheduler({ store: t.store, clock: t.clock, launcher: t.services.launcher, log: createLogger("silent") });
    t.clock.advance(5 * MINUTE);
    await Promise.all([sweep(), other.sweep()]);
    expect(await runsOf(team.id)).toHaveLength(1);
  });

  it("records the gate's refusal as last_error, skips the occurrence, and clears it at the next launch", async () => {
    const team = await freshTeamOf({ max_concurrent_runs: 1 });
    const made = (await create(team.id, { cron: "*/10 * * * *", timezone: "UTC" })).body;
    const blocker = await s.admin.post("/api/runs", { team_id: team.id, bot: "review-pr" });
    expect(blocker.status).toBe(201);
    t.clock.set(Date.parse(made.next_run_at));
    await sweep();
    expect(await runsOf(team.id)).toHaveLength(1);
    const refused = (await schedule(team.id, made.id)).body;
    expect(refused.last_error).toMatch(/^concurrency_cap_exceeded: /);
    expect(refused.last_error_at).toBe(new Date(t.clock.now()).toISOString());
    expect(refused.next_run_at).toBe(new Date(t.clock.now() + 10 * MINUTE).toISOString());
    expect((await t.services.metrics.launchDenied.get()).values).toContainEqual(expect.objectContaining({ labels: { reason: "concurrency_cap_exceeded" } }));

    await t.store.db.updateTable("runs").set({ status: "cancelled" }).where("id", "=", blocker.body.id).execute();
    t.clock.advance(10 * MINUTE);
    await sweep();
    expect(await runsOf(team.id)).toHaveLength(2);
    expect((await schedule(team.id, made.id)).body).toMatchObject({ last_error: null, last_error_at: null });
  });

  it("stops launching a disabled schedule, and resumes from the next occurrence after now when enabled again", async () => {
    const team = await freshTeamOf();
    const made = (await create(team.id, { cron: "*/15 * * * *", timezone: "UTC" })).body;
    const off = await s.teamAdmin.api.patch(`/api/teams/${team.id}/schedules/${made.id}`, { enabled: false });
    expect(off.body).toMatchObject({ enabled: false, next_run_at: null });
    t.clock.advance(60 * MINUTE);
    await sweep();
    const on = await s.teamAdmin.api.patch(`/api/teams/${team.id}/schedules/${made.id}`, { enabled: true, cron: "*/15 * * * *" });
    expect(Date.parse(on.body.next_run_at)).toBeGreaterThan(t.clock.now());
    expect(Date.parse(on.body.next_run_at) - t.clock.now()).toBeLessThanOrEqual(15 * MINUTE);
    expect((await s.teamAdmin.api.delete(`/api/teams/${team.id}/schedules/${made.id}`)).status).toBe(204);
    expect((await schedule(team.id, made.id)).status).toBe(404);
    expect(await runsOf(team.id)).toEqual([]);
  });
});
