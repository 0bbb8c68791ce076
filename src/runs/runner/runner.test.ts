import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";
import { BotCommands } from "./bot-commands.js";
import { inProcessRunner } from "../../test-support/runners.js";

type Seed = Awaited<ReturnType<typeof seedTenancy>>;

describe.each(storeKinds())("reference runner on %s", (kind) => {
  let t: TestApp;
  let s: Seed;
  let dir: string;

  const runnerWith = (bots: BotCommands) => inProcessRunner(t.services, bots);

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bots-"));
    fs.writeFileSync(
      path.join(dir, "bots.json"),
      JSON.stringify({
        "review-pr": { command: ["node", "-e", "setInterval(() => {}, 1000)"] },
        converse: { command: ["node", "-e", "process.exit(3)"] },
        improve: { command: ["node", "-e", "setTimeout(() => {}, 60000)"], timeout_seconds: 0.2 },
        "no-binary": { command: ["./no-such-bot-binary"] },
      }),
    );
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("runs the shipped example bot from queued to succeeded, with its usage in org_usage and the ledger", async () => {
    const launched = await s.member.api.post("/api/runs", {
      team_id: s.team.id,
      bot: "review-pr",
      vars: { title: "Fix the flaky test", body: "It fails on Mondays" },
      repo_url: "https://forge.example/acme/app.git",
      repo_ref: "main",
    });
    expect(launched.status).toBe(201);
    expect(launched.body.status).toBe("queued");
    const runner = runnerWith(new BotCommands(t.config.botsFile));
    expect(await runner.tick()).toBe(1);
    expect((await s.member.api.get(`/api/runs/${launched.body.id}`)).body.status).toBe("running");
    await runner.idle();

    const run = (await s.member.api.get(`/api/runs/${launched.body.id}`)).body;
    expect(run).toMatchObject({ status: "succeeded", attempt: 1, failure_code: null });
    expect(run.attempts).toEqual([expect.objectContaining({ number: 1, status: "succeeded" })]);
    expect(run.usage.cost_usd).toBeGreaterThan(0);
    expect(run.usage.input_tokens).toBeGreaterThan(0);

    const usage = (await s.member.api.get(`/api/orgs/${s.org.id}/usage`)).body;
    expect(usage).toMatchObject({ runs_this_month: 1, cost_usd_this_month: run.usage.cost_usd, input_tokens_this_month: run.usage.input_tokens });
    const ledger = (await s.member.api.get(`/api/teams/${s.team.id}/credentials/usage?repo=acme/app`)).body;
    expect(ledger.credentials).toEqual([
      expect.objectContaining({
        fingerprint: "example-local",
        provider: "example",
        tier: "platform",
        repo: "acme/app",
        metered_usd: 0,
        estimated_usd: run.usage.cost_usd,
        attempts: 1,
      }),
    ]);
    await runner.stop();
  });

  it("delivers a cancel to the running bot at its next heartbeat and kills it", async () => {
    const launched = await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr" });
    const runner = runnerWith(new BotCommands(path.join(dir, "bots.json")));
    expect(await runner.tick()).toBe(1);
    const cancelled = await s.member.api.post(`/api/runs/${launched.body.id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: "running", cancel_requested: true });
    await runner.heartbeatAll();
    await runner.idle();
    expect((await s.member.api.get(`/api/runs/${launched.body.id}`)).body.status).toBe("cancelled");
    await runner.stop();
  });

  it("fails a bot that exits non-zero, and kills one past its timeout", async () => {
    const a = await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "converse" });
    const b = await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "improve" });
    const runner = runnerWith(new BotCommands(path.join(dir, "bots.json")));
    await runner.tick();
    await runner.idle();
    expect((await s.member.api.get(`/api/runs/${a.body.id}`)).body).toMatchObject({ status: "failed", failure_code: "BOT_FAILED" });
    expect((await s.member.api.get(`/api/runs/${b.body.id}`)).body).toMatchObject({ status: "failed", failure_code: "TIMEOUT" });
    await runner.stop();
  });

  it.each([
    // execve takes C strings: a NUL in the environment makes spawn throw before any child exists.
    ["spawn throws", "review-pr", { title: "a\u0000b" }, /null bytes/],
    ["the executable is missing", "no-binary", {}, /ENOENT/],
  ] as const)("finishes a run whose bot cannot start (%s) as failed at once, with the cause, freeing its slot", async (_label, botId, vars, cause) => {
    const team = (await s.admin.post(`/api/orgs/${s.org.id}/teams`, { name: `Start ${botId}`, max_concurrent_runs: 1 })).body;
    const gated = (bot: string, v: Record<string, string> = {}) =>
      t.services.launcher.launch({ teamId: team.id, botId: bot, vars: v, source: "api", actor: { userId: null, kind: "user" } });
    const launched = await gated(botId, vars);
    if (launched.kind !== "launched") throw new Error("denied");
    expect((await gated("converse")).kind).toBe("denied");
    const runner = runnerWith(new BotCommands(path.join(dir, "bots.json")));
    expect(await runner.tick()).toBe(1);
    await runner.idle();
    const run = (await s.admin.get(`/api/runs/${launched.run.id}`)).body;
    expect(run).toMatchObject({
      status: "failed",
      failure_code: "BOT_START_FAILED",
      failure_detail: expect.stringMatching(/^the bot could not start: /),
      attempts: [{ number: 1, status: "failed", failure_code: "BOT_START_FAILED" }],
    });
    expect(run.failure_detail).toMatch(cause);
    const next = await gated("converse");
    expect(next.kind).toBe("launched");
    if (next.kind === "launched") await t.services.runQueue.cancel(next.run.id);
    await runner.stop();
  });

  it("reclaims a run whose runner stopped heartbeating, freeing its concurrency slot", async () => {
    const team = (await s.admin.post(`/api/orgs/${s.org.id}/teams`, { name: "Lease", max_concurrent_runs: 1 })).body;
    const first = await s.admin.post("/api/runs", { team_id: team.id, bot: "review-pr" });
    // Super-admins bypass the gate, so use the launcher as a member would.
    const gated = () => t.services.launcher.launch({ teamId: team.id, botId: "review-pr", vars: {}, source: "api", actor: { userId: null, kind: "user" } });
    expect((await gated()).kind).toBe("denied");
    const claim = await t.services.runQueue.claim("gone", 60_000);
    expect(claim?.run.id).toBe(first.body.id);
    expect(await t.services.runQueue.reclaimExpiredLeases()).toBe(0);
    t.clock.advance(60_001);
    expect(await t.services.runQueue.reclaimExpiredLeases()).toBe(1);
    expect((await s.admin.get(`/api/runs/${first.body.id}`)).body).toMatchObject({ status: "failed_resumable", failure_code: "RUNNER_LOST" });
    expect(await t.services.runQueue.heartbeat(claim!.run.id, claim!.claimToken, 60_000)).toEqual({ held: false, cancelRequested: true });
    expect((await t.services.runQueue.finish(claim!, { status: "succeeded" })).finished).toBe(false);
    const next = await gated();
    expect(next.kind).toBe("launched");
    if (next.kind === "launched") await t.services.runQueue.cancel(next.run.id);
    const recovered = (await t.services.metrics.orphanRecovered.get()).values[0]?.value;
    expect(recovered).toBe(1);
  });

  it("counts a repeated usage report once", async () => {
    const r = await t.services.launcher.launch({ teamId: s.otherTeam.id, botId: "converse", vars: {}, source: "api", actor: { userId: null, kind: "user" } });
    if (r.kind !== "launched") throw new Error("denied");
    const before = (await s.admin.get(`/api/admin/orgs/${s.org.id}/usage`)).body;
    const claim = (await t.services.runQueue.claim("w", 60_000))!;
    expect(claim.run.id).toBe(r.run.id);
    const report = {
      reportId: "1:x",
      costMicro: 1500,
      inputTokens: 10,
      outputTokens: 5,
      aggregateTokens: 7,
      fingerprint: "fp1",
      provider: "p",
      tier: "team" as const,
      repo: null,
      amountType: "metered" as const,
    };
    await t.services.runQueue.finish(claim, { status: "succeeded" }, [report, report]);
    await t.services.runQueue.finish(claim, { status: "succeeded" }, [report]);
    const after = (await s.admin.get(`/api/admin/orgs/${s.org.id}/usage`)).body;
    expect(after.cost_usd_this_month - before.cost_usd_this_month).toBeCloseTo(0.0015, 9);
    expect(after.aggregate_tokens_this_month - before.aggregate_tokens_this_month).toBe(7);
    const ledger = (await s.outsider.api.get(`/api/teams/${s.otherTeam.id}/credentials/usage`)).body;
    expect(ledger.credentials).toEqual([expect.objectContaining({ fingerprint: "fp1", tier: "team", metered_usd: 0.0015, estimated_usd: 0, attempts: 1 })]);
  });
});

describe.each(storeKinds())("metering failures on %s", (kind) => {
  let t: TestApp;
  let s: Seed;

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
  });
  afterAll(() => t.close());

  it("never fail a finished run", async () => {
    const r = await t.services.launcher.launch({ teamId: s.team.id, botId: "review-pr", vars: {}, source: "api", actor: { userId: null, kind: "user" } });
    if (r.kind !== "launched") throw new Error("denied");
    const claim = (await t.services.runQueue.claim("w", 60_000))!;
    await t.store.db.schema.dropTable("credential_usage").execute();
    const done = await t.services.runQueue.finish(claim, { status: "succeeded" }, [
      {
        reportId: "1:a",
        costMicro: 5,
        inputTokens: 1,
        outputTokens: 1,
        aggregateTokens: 0,
        fingerprint: "fp",
        provider: "p",
        tier: "team",
        repo: null,
        amountType: "metered",
      },
    ]);
    expect(done.finished).toBe(true);
    expect((await s.member.api.get(`/api/runs/${r.run.id}`)).body.status).toBe("succeeded");
    expect(t.logs.join("")).toContain("metering failed");
  });
});
