import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pgAvailable, startCluster } from "./lib/pg.js";
import { cleanupAll, sleep, startService, tempDir, type Service } from "./lib/proc.js";
import { cleanupRunners, startRunnerProcess } from "./lib/runner.js";
import { admin, createOrg, createTeam } from "./lib/seed.js";

afterAll(async () => {
  await cleanupRunners();
  await cleanupAll();
});

/**
 * The bot: a run with vars.mode "hang" hangs in its first attempt (ending itself after 30 s, so
 * no orphan outlives the file); any other attempt reports usage and succeeds.
 */
const BOT = `
const attempt = Number(process.env.BOT_ATTEMPT);
console.log("attempt " + attempt + " started");
if (attempt === 1 && process.env.BOT_VAR_mode === "hang") {
  setTimeout(() => process.exit(1), 30000);
} else {
  console.log(JSON.stringify({ usage: { id: "u", cost_usd: 0.5, input_tokens: 7, provider: "example", fingerprint: "fp-remote", tier: "platform", amount_type: "estimate" } }));
}
`;

/** A bots folder any user can read (the sandbox may run bots as another user). */
function botsFolder(): { dir: string; file: string } {
  const dir = tempDir("bots");
  chmodSync(dir, 0o755);
  writeFileSync(path.join(dir, "bot.mjs"), BOT, { mode: 0o644 });
  const file = path.join(dir, "bots.json");
  writeFileSync(file, JSON.stringify({ "review-pr": { command: ["node", "bot.mjs"], timeout_seconds: 120 } }), { mode: 0o644 });
  return { dir, file };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

async function scenario(start: (env: Record<string, string>) => Promise<Service>) {
  const bots = botsFolder();
  // A short lease, so a lost runner's run is reclaimed within seconds (reclaim every half lease).
  const svc = await start({ SERVICE_RUNNER_LEASE: "4s", SERVICE_BOTS_FILE: bots.file });
  const a = admin(svc.base);
  const org = await createOrg(a);
  const team = await createTeam(a, org);
  const run = async (id: string) => a.get(`/api/runs/${id}`);
  const status = (id: string, want: string) => until(`run ${id} ${want}`, async () => ((await run(id)).status === want ? run(id) : undefined));
  const runner = (token: string) => startRunnerProcess({ url: svc.base, token, botsDir: bots.dir });
  return { svc, a, team, run, status, runner };
}

async function killNineThenResume(start: (env: Record<string, string>) => Promise<Service>) {
  const { svc, a, team, status, runner } = await scenario(start);
  const minted = await a.post("/api/admin/runners", { name: "kill9" });
  const launched = await a.post("/api/runs", { team_id: team.id, bot: "review-pr", vars: { mode: "hang" } });
  const first = runner(minted.token);
  await status(launched.id, "running");
  await first.kill9();
  const lost = await status(launched.id, "failed_resumable");
  expect(lost, first.output()).toMatchObject({
    failure_code: "RUNNER_LOST",
    attempts: [{ number: 1, status: "failed_resumable", failure_code: "RUNNER_LOST" }],
  });

  expect((await a.post(`/api/runs/${launched.id}/resume`)).status).toBe("queued");
  const second = runner(minted.token);
  const done = await status(launched.id, "succeeded");
  expect(done, second.output()).toMatchObject({ attempt: 2, attempts: [{ number: 1 }, { number: 2, status: "succeeded" }] });
  expect(done.usage.cost_usd).toBeCloseTo(0.5, 9);
  second.proc.kill("SIGTERM");
  expect(await second.exited).toBe(0);
  await svc.stop();
}

async function revokeStopsRunner(start: (env: Record<string, string>) => Promise<Service>) {
  const { svc, a, team, status, runner } = await scenario(start);
  const minted = await a.post("/api/admin/runners", { name: "revoked" });
  const launched = await a.post("/api/runs", { team_id: team.id, bot: "review-pr", vars: { mode: "hang" } });
  const r = runner(minted.token);
  await status(launched.id, "running");
  expect((await a.call("DELETE", `/api/admin/runners/${minted.id}`)).status).toBe(204);
  // Refused at its next heartbeat (four a lease): it stops its bot and exits 3.
  const code = await Promise.race([r.exited, sleep(30_000).then(() => "still running")]);
  expect(code, r.output()).toBe(3);
  expect(r.output()).toContain("the service refused its token");
  const lost = await status(launched.id, "failed_resumable");
  expect(lost.failure_code).toBe("RUNNER_LOST");
  // Another runner takes the resumed run.
  await a.post(`/api/runs/${launched.id}/resume`);
  const heir = runner((await a.post("/api/admin/runners", { name: "heir" })).token);
  expect((await status(launched.id, "succeeded")).attempt).toBe(2);
  heir.proc.kill("SIGTERM");
  await heir.exited;
  await svc.stop();
}

async function sigtermHandsBack(start: (env: Record<string, string>) => Promise<Service>) {
  const { svc, a, team, status, runner } = await scenario(start);
  const minted = await a.post("/api/admin/runners", { name: "stopped" });
  const launched = await a.post("/api/runs", { team_id: team.id, bot: "review-pr", vars: { mode: "hang" } });
  const r = runner(minted.token);
  await status(launched.id, "running");
  r.proc.kill("SIGTERM");
  expect(await r.exited, r.output()).toBe(0);
  // Its bot was stopped and the attempt finished at once, resumable: no lease had to lapse.
  expect(await a.get(`/api/runs/${launched.id}`)).toMatchObject({ status: "failed_resumable", failure_code: "RUNNER_STOPPED" });
  await svc.stop();
}

describe("a runner on a host of its own (runner protocol over HTTP)", () => {
  it("stopped with SIGTERM mid-run: it stops its bot and finishes the attempt resumable (SQLite)", async () => {
    await sigtermHandsBack((env) => startService({ env }));
  });

  it("killed -9 mid-run: its run becomes RUNNER_LOST and resumes on a runner started again (SQLite)", async () => {
    await killNineThenResume((env) => startService({ env }));
  });

  it("revoked: the runner stops with a clear message and its run is reclaimed, then resumed (SQLite)", async () => {
    await revokeStopsRunner((env) => startService({ env }));
  });

  it.skipIf(!pgAvailable())(
    "killed -9, and revoked, on PostgreSQL",
    async () => {
      const cluster = await startCluster();
      try {
        const databaseUrl = await cluster.createDatabase();
        await killNineThenResume((env) => startService({ env, databaseUrl }));
        await revokeStopsRunner((env) => startService({ env, databaseUrl }));
      } finally {
        cluster.stop();
      }
      // Two scenarios and a cluster's start: twice the suite's room for one.
    },
    360_000,
  );
});
