import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../config/logger.js";
import { monthOf } from "../core/month.js";
import { findOrgUsage } from "../store/usage.js";
import { seedTenancy, startTestApp, storeKinds, type TestApp } from "../test-support/harness.js";
import { RetrySweeper } from "./retry-sweeper.js";
import { BotCommands } from "./runner/bot-commands.js";
import { inProcessRunner } from "../test-support/runners.js";

type Seed = Awaited<ReturnType<typeof seedTenancy>>;

const HOUR = 3600_000;

describe.each(storeKinds())("usage-window retries and the dead-letter queue on %s", (kind) => {
  let t: TestApp;
  let s: Seed;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bots-"));
    // The bot reads the reset time from its vars, reports the exhausted window and exits 75.
    const blocked = 'console.log(JSON.stringify({usage_window: {provider: "anthropic", reset_at: process.env.BOT_VAR_reset}})); process.exit(75)';
    fs.writeFileSync(path.join(dir, "bots.json"), JSON.stringify({ "review-pr": { command: ["node", "-e", blocked] } }));
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const runner = () => inProcessRunner(t.services, new BotCommands(path.join(dir, "bots.json")), { concurrency: 1 });
  const sweep = () => t.services.retries.sweep();
  const counter = async (name: "usageWindowBlocked" | "retryScheduled" | "retrySweeps") => (await t.services.metrics[name].get()).values[0]?.value ?? 0;
  const resumed = async (result: string) => (await t.services.metrics.retryResumed.get()).values.find((v) => v.labels.result === result)?.value ?? 0;

  /** A team of its own (and an org), with a run launched and run by the blocked bot until its window resets in `resetIn`. */
  async function blockedRun(resetIn: number, orgBody: Record<string, unknown> = {}, teamBody: Record<string, unknown> = {}) {
    const org = (await s.admin.post("/api/admin/orgs", { name: `O${Math.random()}`, ...orgBody })).body;
    const team = (await s.admin.post(`/api/orgs/${org.id}/teams`, { name: "T", ...teamBody })).body;
    await s.admin.put(`/api/teams/${team.id}/members/${s.teamAdmin.id}`, { role: "admin" });
    await t.store.db.updateTable("runs").set({ status: "cancelled" }).where("status", "=", "queued").execute();
    const reset = new Date(t.clock.now() + resetIn).toISOString();
    const launched = await s.teamAdmin.api.post("/api/runs", { team_id: team.id, bot: "review-pr", vars: { reset } });
    expect(launched.status).toBe(201);
    const r = runner();
    expect(await r.tick()).toBe(1);
    await r.idle();
    return { org, team, run: (await s.teamAdmin.api.get(`/api/runs/${launched.body.id}`)).body };
  }
  const runOf = async (id: string) => (await s.teamAdmin.api.get(`/api/runs/${id}`)).body;

  it("arms a retry at the window's reset when the bot reports it exhausted, and resumes the run then, metered as a new attempt", async () => {
    const blocked = await counter("usageWindowBlocked");
    const scheduled = await counter("retryScheduled");
    const { org, run } = await blockedRun(2 * HOUR, { retry_jitter: 0 });
    expect(run).toMatchObject({ status: "failed_resumable", failure_code: "USAGE_WINDOW", auto_retries: 0, dead_lettered_at: null });
    expect(run.failure_detail).toMatch(/^anthropic usage window exhausted until /);
    expect(run.retry_at).toBe(new Date(t.clock.now() + 2 * HOUR).toISOString());
    expect(await counter("usageWindowBlocked")).toBe(blocked + 1);
    expect(await counter("retryScheduled")).toBe(scheduled + 1);

    const sweeps = await counter("retrySweeps");
    expect((await sweep()).get(run.id)).toBeUndefined();
    expect(await counter("retrySweeps")).toBe(sweeps + 1);
    t.clock.advance(2 * HOUR);
    const enqueued = await resumed("enqueued");
    expect((await sweep()).get(run.id)).toBe("enqueued");
    expect(await resumed("enqueued")).toBe(enqueued + 1);
    expect((await t.services.metrics.retryPending.get()).values[0]?.value).toBeGreaterThanOrEqual(1);
    expect(await runOf(run.id)).toMatchObject({
      status: "queued",
      attempt: 2,
      auto_retries: 1,
      retry_at: null,
      source: "resume",
      actor: { kind: "retry-sweeper" },
    });
    expect((await findOrgUsage(t.store.db, org.id, monthOf(t.clock.now()))).runs).toBe(2);
  });

  it("resumes a due retry once when two replicas sweep it together", async () => {
    const { run } = await blockedRun(HOUR, { retry_jitter: 0 });
    t.clock.advance(HOUR);
    const other = new RetrySweeper({ store: t.store, clock: t.clock, launcher: t.services.launcher, metrics: t.services.metrics, log: createLogger("silent") });
    const [a, b] = await Promise.all([sweep(), other.sweep()]);
    // The other replica saw it taken, or (when the first had finished before it looked) not due at all.
    const results = [a.get(run.id), b.get(run.id)];
    expect(results.filter((r) => r === "enqueued")).toHaveLength(1);
    expect(results.filter((r) => r !== "enqueued")).toEqual([expect.toBeOneOf(["taken", undefined])]);
    expect(await runOf(run.id)).toMatchObject({ status: "queued", attempt: 2, auto_retries: 1 });
  });

  it("parks a run on the dead-letter queue once its retries are used, or when its window resets past retry_max_wait", async () => {
    const { run } = await blockedRun(HOUR, { retry_max_attempts: 0 });
    expect(run).toMatchObject({ status: "failed_resumable", retry_at: null, dead_letter_reason: "usage-window retries exhausted (0)" });
    expect(run.dead_lettered_at).toBe(new Date(t.clock.now()).toISOString());
    const far = (await blockedRun(3 * HOUR, { retry_max_wait: 3600 })).run;
    expect(far.dead_letter_reason).toBe("the usage window resets in 10800 s, past retry_max_wait");
    expect((await t.services.metrics.dlqDepth.get()).values[0]?.value).toBeGreaterThanOrEqual(2);
  });

  it("leaves the run to a person when the org turns usage-window retries off", async () => {
    const { run } = await blockedRun(HOUR, { retry_usage_window: false });
    expect(run).toMatchObject({ status: "failed_resumable", failure_code: "USAGE_WINDOW", retry_at: null, dead_lettered_at: null });
  });

  it("abandons a retry the gate refuses for the month onto the dead-letter queue, and re-arms one refused for now", async () => {
    const quota = await blockedRun(HOUR, { retry_jitter: 0, monthly_run_quota: 1 });
    t.clock.advance(HOUR);
    const abandoned = await resumed("abandoned");
    expect((await sweep()).get(quota.run.id)).toBe("abandoned");
    expect(await resumed("abandoned")).toBe(abandoned + 1);
    expect(await runOf(quota.run.id)).toMatchObject({
      status: "failed_resumable",
      dead_letter_reason: "retry refused by the launch gate: monthly_run_quota_exceeded",
    });

    const capped = await blockedRun(HOUR, { retry_jitter: 0 }, { max_concurrent_runs: 1 });
    const blocker = await s.admin.post("/api/runs", { team_id: capped.team.id, bot: "review-pr" });
    t.clock.advance(HOUR);
    expect((await sweep()).get(capped.run.id)).toBe("rearmed");
    expect(await runOf(capped.run.id)).toMatchObject({ retry_at: new Date(t.clock.now() + 30_000).toISOString(), dead_lettered_at: null });
    await t.store.db.updateTable("runs").set({ status: "cancelled" }).where("id", "=", blocker.body.id).execute();
    t.clock.advance(30_000);
    expect((await sweep()).get(capped.run.id)).toBe("enqueued");
  });

  it("disarms a run's armed retry when its pull request closes", async () => {
    const { run } = await blockedRun(HOUR);
    await t.store.db.updateTable("runs").set({ subject_id: "pr:acme/app#7" }).where("id", "=", run.id).execute();
    expect(await t.services.runQueue.stopBySubject(run.team_id, "pr:acme/app#7")).toMatchObject({ retriesDisarmed: 1 });
    t.clock.advance(2 * HOUR);
    expect((await sweep()).get(run.id)).toBeUndefined();
    expect(await runOf(run.id)).toMatchObject({ status: "failed_resumable", retry_at: null });
  });

  it("re-publishes a dead-lettered run without counting it twice, and discards another (team admins only)", async () => {
    const { org, team, run } = await blockedRun(HOUR, { retry_max_attempts: 0 });
    const month = monthOf(t.clock.now());
    const before = (await findOrgUsage(t.store.db, org.id, month)).runs;
    const listed = await s.teamAdmin.api.get(`/api/teams/${team.id}/dead-letters`);
    expect(listed.body.runs.map((r: { id: string }) => r.id)).toEqual([run.id]);
    expect((await s.member.api.post(`/api/runs/${run.id}/republish`)).status).toBe(404);
    const again = await s.teamAdmin.api.post(`/api/runs/${run.id}/republish`);
    expect(again.body).toMatchObject({ status: "queued", attempt: 2, dead_lettered_at: null, dead_letter_reason: null });
    expect((await findOrgUsage(t.store.db, org.id, month)).runs).toBe(before);
    expect((await s.teamAdmin.api.post(`/api/runs/${run.id}/republish`)).status).toBe(409);
    expect((await s.teamAdmin.api.get(`/api/teams/${team.id}/dead-letters`)).body.runs).toEqual([]);

    const other = await blockedRun(HOUR, { retry_max_attempts: 0 });
    const discarded = await s.teamAdmin.api.post(`/api/runs/${other.run.id}/discard`);
    expect(discarded.body).toMatchObject({ status: "failed", dead_lettered_at: null });
    expect((await s.teamAdmin.api.post(`/api/runs/${other.run.id}/discard`)).status).toBe(409);
  });

  it("parks a run whose runner is lost three times", async () => {
    const { run } = await blockedRun(HOUR, { retry_usage_window: false });
    for (let i = 0; i < 3; i++) {
      await s.teamAdmin.api.post(`/api/runs/${run.id}/resume`);
      await t.store.db.updateTable("runs").set({ status: "cancelled" }).where("status", "=", "queued").where("id", "!=", run.id).execute();
      const claim = await t.services.runQueue.claim("doomed", 1000);
      expect(claim?.run.id).toBe(run.id);
      t.clock.advance(2000);
      await t.services.runQueue.reclaimExpiredLeases();
    }
    expect(await runOf(run.id)).toMatchObject({ status: "failed_resumable", failure_code: "RUNNER_LOST", dead_letter_reason: "its runner was lost 3 times" });
  });
});
