import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../config/logger.js";
import { Sealer } from "../../core/sealer.js";
import { platformKeysOf } from "../../credentials/platform-keys.js";
import { RunCredentials } from "../../credentials/run-credentials.js";
import { findRun } from "../../store/runs.js";
import { seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";
import { BotCommands } from "./bot-commands.js";
import { inProcessRunner } from "../../test-support/runners.js";
import type { Runner } from "./runner.js";

const TEAM_KEY = "sk-ant-team-PLAINTEXT-0000000001";
const OTHER_TEAM_KEY = "sk-ant-other-PLAINTEXT-000000002";
const POOL_KEY = "sk-openai-pool-PLAINTEXT-0000003";
const PLATFORM_KEY = "sk-openai-platform-PLAINTEXT-004";
const NPM_TOKEN = "npm_workflow_secret_PLAINTEXT_05";
const ALL_SECRETS = [TEAM_KEY, OTHER_TEAM_KEY, POOL_KEY, PLATFORM_KEY, NPM_TOKEN];

/**
 * The test bot: prints the credential variables it sees (hex, so the runner's masking leaves
 * them readable in the kept log; the sandbox lets it write nowhere the test could read),
 * reports usage under a fingerprint of its own, and leaks its key to stderr when asked.
 */
const SEE_ENV = `
const seen = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("BOT_KEY_") || k.startsWith("BOT_SECRET_")));
console.log("seen " + Buffer.from(JSON.stringify({ seen, argv: process.argv })).toString("hex"));
console.log(JSON.stringify({ usage: { id: "u1", cost_usd: 0.25, input_tokens: 10, provider: "anthropic", fingerprint: "claimed-by-bot", tier: "platform", amount_type: "metered" } }));
if (process.env.BOT_VAR_leak) { process.stderr.write("oops " + process.env.BOT_KEY_ANTHROPIC + "\\n"); process.exit(1); }
`;

describe.each(storeKinds())("credentials handed to runs on %s", (kind) => {
  let t: TestApp;
  let s: Awaited<ReturnType<typeof seedTenancy>>;
  let dir: string;
  let runner: Runner;
  const runnerLogs: string[] = [];

  /** What the bot of the run's latest attempt that ran printed it saw. */
  const seen = async (runId: string) => {
    let found: { seen: Record<string, string>; argv: string[] } | undefined;
    const attempts = (await run(runId)).attempts.length as number;
    for (let n = 1; n <= attempts; n++) {
      const log = String((await s.admin.call("GET", `/api/runs/${runId}/attempts/${n}/log`)).body);
      const line = /^seen ([0-9a-f]+)$/m.exec(log);
      if (line) found = JSON.parse(Buffer.from(line[1]!, "hex").toString("utf8"));
    }
    return found;
  };
  const runAll = async () => {
    await runner.tick();
    await runner.idle();
  };
  const run = async (id: string) => (await s.admin.get(`/api/runs/${id}`)).body;
  const deliver = async (hookId: string, token: string, body: Record<string, unknown>) => {
    const res = await t.app.inject({ method: "POST", url: `/api/webhooks/generic/${hookId}`, payload: body, headers: { "x-service-webhook-token": token } });
    const answer = JSON.parse(res.body);
    expect(answer.status).toBe("launched");
    return answer.run_id as string;
  };
  const key = async (team: string, provider: string, secret: string) =>
    (await s.admin.post(`/api/teams/${team}/keys`, { provider, name: `${provider} key`, secret })).body;

  beforeAll(async () => {
    t = await startTestApp(kind, { SERVICE_PLATFORM_KEY_OPENAI: PLATFORM_KEY });
    s = await seedTenancy(t);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bots-"));
    fs.chmodSync(dir, 0o755); // readable by the user bots run as when the runner is root
    fs.writeFileSync(path.join(dir, "see-env.mjs"), SEE_ENV);
    const bot = { command: ["node", "see-env.mjs"], providers: ["anthropic", "openai"] };
    const clashing = { command: ["node", "see-env.mjs"], providers: ["open-ai", "open_ai"] };
    fs.writeFileSync(path.join(dir, "bots.json"), JSON.stringify({ "review-pr": bot, converse: bot, improve: clashing }));
    const sink = new Writable({
      write(chunk, _enc, done) {
        runnerLogs.push(String(chunk));
        done();
      },
    });
    const bots = new BotCommands(path.join(dir, "bots.json"));
    runner = inProcessRunner(t.services, bots, { log: createLogger("debug", sink), concurrency: 2 });
  });
  afterAll(async () => {
    await runner.stop();
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("hands a delivery's bot exactly the key and secret its webhook names, charges the ledger to that key, and shows no value anywhere", async () => {
    const teamKey = await key(s.team.id, "anthropic", TEAM_KEY);
    await key(s.otherTeam.id, "anthropic", OTHER_TEAM_KEY);
    const poolKey = (await s.orgAdmin.api.post(`/api/orgs/${s.org.id}/keys`, { provider: "openai", name: "shared", secret: POOL_KEY })).body;
    const npm = (await s.teamAdmin.api.post(`/api/teams/${s.team.id}/secrets`, { name: "NPM", value: NPM_TOKEN })).body;
    const made = await s.teamAdmin.api.post(`/api/teams/${s.team.id}/webhooks`, {
      provider: "generic",
      bot_ids: ["review-pr"],
      key_overrides: { anthropic: teamKey.id },
      secret_overrides: { NPM_TOKEN: npm.id },
    });
    const usageShape = Object.keys((await s.member.api.get(`/api/orgs/${s.org.id}/usage`)).body).sort();

    const runId = await deliver(made.body.config.id, made.body.token, { bot: "review-pr", repo_url: "https://forge.example/acme/app.git" });
    await runAll();

    const got = (await seen(runId))!;
    expect(got.seen).toEqual({ BOT_KEY_ANTHROPIC: TEAM_KEY, BOT_KEY_OPENAI: POOL_KEY, BOT_SECRET_NPM_TOKEN: NPM_TOKEN });
    expect(got.argv.join(" ")).not.toMatch(/PLAINTEXT/);
    const view = await run(runId);
    expect(view.status).toBe("succeeded");
    expect(view.attempts[0].credentials).toEqual({
      keys: [
        { provider: "anthropic", id: teamKey.id, name: "anthropic key", last4: "0001", tier: "team", source: "webhook" },
        { provider: "openai", id: poolKey.id, name: "shared", last4: "0003", tier: "pool", source: "pool" },
      ],
      secrets: [{ name: "NPM_TOKEN", id: npm.id, secret_name: "NPM" }],
    });
    for (const secret of ALL_SECRETS) {
      expect(JSON.stringify(view)).not.toContain(secret);
      expect(t.logs.join("") + runnerLogs.join("")).not.toContain(secret);
    }

    const ledger = (await s.member.api.get(`/api/teams/${s.team.id}/credentials/usage`)).body.credentials;
    expect(ledger).toEqual([
      expect.objectContaining({ fingerprint: teamKey.fingerprint, provider: "anthropic", tier: "team", metered_usd: 0.25, attempts: 1 }),
    ]);
    expect(Object.keys((await s.member.api.get(`/api/orgs/${s.org.id}/usage`)).body).sort()).toEqual(usageShape);
  });

  it("resolves a run launched by the API from its team, the org's audience and the platform", async () => {
    await s.admin.patch(`/api/admin/orgs/${s.org.id}`, { credential_audience: [s.team.id] });
    const launched = await s.outsider.api.post("/api/runs", { team_id: s.otherTeam.id, bot: "converse" });
    expect(launched.status).toBe(201);
    await runAll();
    expect((await seen(launched.body.id))!.seen).toEqual({ BOT_KEY_ANTHROPIC: OTHER_TEAM_KEY, BOT_KEY_OPENAI: PLATFORM_KEY });
    const keys = (await run(launched.body.id)).attempts[0].credentials.keys;
    expect(keys.map((k: { source: string; tier: string }) => `${k.source}/${k.tier}`)).toEqual(["team/team", "platform/platform"]);
    expect(keys[1]).toMatchObject({ id: "platform:openai", name: "SERVICE_PLATFORM_KEY_OPENAI", last4: "-004" });
    await s.admin.patch(`/api/admin/orgs/${s.org.id}`, { credential_audience: "all" });
  });

  it("resolves at spawn: a key added and the old one deleted after the run was queued", async () => {
    const team = (await s.admin.post(`/api/orgs/${s.org.id}/teams`, { name: "Rotation" })).body;
    const old = await key(team.id, "anthropic", "sk-ant-old-0000000000000000");
    const queued = (await s.admin.post("/api/runs", { team_id: team.id, bot: "converse" })).body;
    await key(team.id, "anthropic", "sk-ant-new-0000000000000000");
    expect((await s.admin.delete(`/api/teams/${team.id}/keys/${old.id}`)).status).toBe(204);
    await runAll();
    expect((await seen(queued.id))!.seen).toEqual({ BOT_KEY_ANTHROPIC: "sk-ant-new-0000000000000000", BOT_KEY_OPENAI: POOL_KEY });
  });

  it("fails an attempt whose named key is no longer the team's to use, with the cause, and never starts the bot", async () => {
    const poolKey = (await s.orgAdmin.api.post(`/api/orgs/${s.org.id}/keys`, { provider: "openai", name: "named", secret: "sk-openai-named-000000000000" }))
      .body;
    const made = await s.teamAdmin.api.post(`/api/teams/${s.team.id}/webhooks`, {
      provider: "generic",
      bot_ids: ["review-pr"],
      key_overrides: { openai: poolKey.id },
    });
    const runId = await deliver(made.body.config.id, made.body.token, { bot: "review-pr" });
    await s.admin.patch(`/api/admin/orgs/${s.org.id}`, { credential_audience: [s.otherTeam.id] });
    await runAll();
    await s.admin.patch(`/api/admin/orgs/${s.org.id}`, { credential_audience: "all" });
    expect(await run(runId)).toMatchObject({
      status: "failed",
      failure_code: "CREDENTIAL_UNAVAILABLE",
      failure_detail: `org key ${poolKey.id} named for openai by webhook ${made.body.config.id} is no longer shared with this team`,
    });
    expect(await seen(runId)).toBeUndefined();

    // Shared again, a resume (a new attempt) resolves again from the run's webhook.
    expect((await s.member.api.post(`/api/runs/${runId}/resume`)).status).toBe(200);
    await runAll();
    expect((await seen(runId))!.seen).toMatchObject({ BOT_KEY_OPENAI: "sk-openai-named-000000000000" });
    const resumed = await run(runId);
    expect(resumed.status).toBe("succeeded");
    expect(resumed.attempts[1].credentials.keys).toContainEqual(
      expect.objectContaining({ provider: "openai", id: poolKey.id, source: "webhook", tier: "pool" }),
    );
    expect(resumed.attempts[0].credentials).toEqual({ keys: [], secrets: [] });

    const second = await deliver(made.body.config.id, made.body.token, { bot: "review-pr", idempotency_key: "second" });
    expect((await s.teamAdmin.api.delete(`/api/teams/${s.team.id}/webhooks/${made.body.config.id}`)).status).toBe(204);
    await runAll();
    expect(await run(second)).toMatchObject({
      status: "failed",
      failure_code: "CREDENTIAL_UNAVAILABLE",
      failure_detail: expect.stringMatching(/no longer exists/),
    });
  });

  it("refuses to hand two providers' keys in one variable", async () => {
    const team = (await s.admin.post(`/api/orgs/${s.org.id}/teams`, { name: "Clash" })).body;
    await key(team.id, "open-ai", "sk-dash-000000000000000000");
    await key(team.id, "open_ai", "sk-underscore-000000000000");
    const queued = (await s.admin.post("/api/runs", { team_id: team.id, bot: "improve" })).body;
    await runAll();
    expect(await run(queued.id)).toMatchObject({
      status: "failed",
      failure_code: "CREDENTIAL_UNAVAILABLE",
      failure_detail: "providers open-ai and open_ai would both be handed in BOT_KEY_OPEN_AI",
    });
    expect(await seen(queued.id)).toBeUndefined();
  });

  it("fails an attempt whose value cannot be held by an environment variable, without quoting it", async () => {
    const launched = (await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "converse" })).body;
    const withNul = new RunCredentials({
      store: t.store,
      sealer: new Sealer("x", { x: randomBytes(32) }),
      clock: t.clock,
      platformKeys: platformKeysOf({ nul: "sk-\u0000-value" }),
    });
    const row = (await findRun(t.store.db, launched.id))!;
    expect(await withNul.handOver(row, 1, ["nul"])).toEqual({ kind: "unavailable", cause: "the value for BOT_KEY_NUL contains a NUL character" });
    await t.services.runQueue.cancel(launched.id);
  });

  it("deletes what a run's attempts were handed with the run", async () => {
    const launched = (await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "converse" })).body;
    await runAll();
    const handed = () => t.store.db.selectFrom("attempt_credentials").select("name").where("run_id", "=", launched.id).execute();
    expect((await handed()).map((r) => r.name)).toEqual(["anthropic", "openai"]);
    expect((await s.teamAdmin.api.delete(`/api/runs/${launched.id}`)).status).toBe(204);
    expect(await handed()).toEqual([]);
  });

  it("masks a handed value the bot prints on stderr in the log and the run", async () => {
    const launched = (await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "converse", vars: { leak: "1" } })).body;
    await runAll();
    const view = await run(launched.id);
    expect(view).toMatchObject({ status: "failed", failure_code: "BOT_FAILED" });
    const ended = runnerLogs.find((l) => l.includes(launched.id) && l.includes("run ended"))!;
    expect(ended).toContain("oops [redacted]");
    for (const secret of ALL_SECRETS) expect(runnerLogs.join("") + JSON.stringify(view)).not.toContain(secret);
  });
});
