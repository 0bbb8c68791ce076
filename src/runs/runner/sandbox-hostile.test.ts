import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";
import { inProcessRunner, testSandbox } from "../../test-support/runners.js";
import { BotCommands } from "./bot-commands.js";
import { chooseSandbox } from "./sandbox.js";
import { KILL_GRACE_MS } from "./run-bot-command.js";
import type { Runner } from "./runner.js";

/**
 * A bot that does what an attacker controlling it would: reads the service's seal key,
 * database and WAL, the service's and its parent's environment and every other process's,
 * writes into the data directory, looks for another run's credentials, and leaves behind a
 * child that ignores SIGTERM while holding stdout and a detached (setsid) sleeper. It prints
 * what it found (hex, so the runner's masking cannot hide a leak) and waits to be ended.
 */
const HOSTILE = `
import fs from "node:fs";
import { spawn } from "node:child_process";
const mark = "hostile-mark-" + process.env.BOT_RUN_ID;
const data = process.env.HOSTILE_DATA;
const tryRead = (file) => { try { return { ok: true, text: fs.readFileSync(file, "latin1") }; } catch (err) { return { ok: false, code: err.code }; } };
// A child that ignores SIGTERM and holds the bot's stdout, and a detached sleeper in a session of its own.
spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => process.stdout.write(''), 1000)", mark], { stdio: ["ignore", "inherit", "inherit"] });
spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", mark], { detached: true, stdio: "ignore" }).unref();
await new Promise((r) => setTimeout(r, 1500)); // the other run's bot is up by now
const report = {
  cwd: process.cwd(),
  sealKey: tryRead(data + "/seal.key"),
  db: tryRead(data + "/service.db"),
  wal: tryRead(data + "/service.db-wal"),
  serviceEnviron: tryRead("/proc/" + process.env.HOSTILE_PID + "/environ"),
  parentEnviron: tryRead("/proc/" + process.ppid + "/environ"),
  environs: {},
  write: (() => { try { fs.writeFileSync(data + "/pwned", "x"); return { ok: true }; } catch (err) { return { ok: false, code: err.code }; } })(),
  tmp: fs.readdirSync("/tmp"),
  ownEnv: Object.entries(process.env).map(([k, v]) => k + "=" + v),
};
for (const pid of fs.readdirSync("/proc").filter((p) => /^\\d+$/.test(p))) {
  const got = tryRead("/proc/" + pid + "/environ");
  if (got.ok) report.environs[pid] = got.text;
}
console.log("report " + Buffer.from(JSON.stringify(report)).toString("hex"));
setInterval(() => {}, 1000);
`;

/**
 * Bots that go for the machine's resources, each under small limits of its own: a fork bomb
 * whose shells wait for their children (so they pile up, a level each 0.2 s, until fork fails),
 * a process allocating and touching memory without end, and one writing a file without end.
 */
const FORK_BOMB = `
import fs from "node:fs";
import { spawn } from "node:child_process";
const mark = "hostile-mark-" + process.env.BOT_RUN_ID;
spawn("sh", ["-c", "b() { sleep 0.2; b & b & wait; }; b", mark], { stdio: ["ignore", "ignore", "inherit"] });
// Only synchronous calls from here on: the bomb leaves no process (thread) to spare.
setTimeout(() => console.log("processes " + fs.readdirSync("/proc").filter((p) => /^\\d+$/.test(p)).length), 6000);
setInterval(() => {}, 1000);
`;
const MEMORY_HOG = `
const held = [];
for (;;) {
  held.push(Buffer.alloc(32 * 1024 * 1024, 1));
  console.log("allocated " + held.length * 32 + " MiB");
}
`;
const DISK_FILLER = ["sh", "-c", "head -c 100000000 /dev/zero > big.bin; s=$?; echo size $(wc -c < big.bin); exit $s"];

const KEY_A = "sk-ant-hostile-A-PLAINTEXT-00000001";
const KEY_B = "sk-ant-hostile-B-PLAINTEXT-00000002";
const SEAL = "seal-key-PLAINTEXT-the-bot-must-not-read";

interface Report {
  cwd: string;
  sealKey: { ok: boolean; text?: string };
  db: { ok: boolean };
  wal: { ok: boolean };
  serviceEnviron: { ok: boolean };
  parentEnviron: { ok: boolean; text?: string };
  environs: Record<string, string>;
  write: { ok: boolean };
  tmp: string[];
  ownEnv: string[];
}

/** Host processes whose command line carries the run's marker: what is left of its attempt. */
function leftOf(runId: string): number[] {
  const left: number[] = [];
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(`hostile-mark-${runId}`)) left.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return left;
}

const required = process.env.SERVICE_TEST_REQUIRE_SANDBOX === "1";
/** The sandbox this machine gives (bubblewrap is what confines all of the below); without it the suite is skipped, or fails when required. */
const machine = chooseSandbox({ mode: "auto", user: "nobody" }, []);

describe.skipIf(!machine.usesBwrap && !required).each(storeKinds())("a hostile bot in the sandbox on %s", (kind) => {
  let t: TestApp;
  let s: Seed;
  let dir: string;
  let runner: Runner;

  beforeAll(async () => {
    t = await startTestApp(kind);
    const sandbox = testSandbox(t.config);
    if (!sandbox.usesBwrap) throw new Error(`SERVICE_TEST_REQUIRE_SANDBOX=1 but the sandbox here is "${sandbox.mode}": install bubblewrap`);
    s = await seedTenancy(t);
    fs.writeFileSync(path.join(t.config.dataDir, "seal.key"), `${SEAL}\n`, { mode: 0o600 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bots-"));
    fs.chmodSync(dir, 0o755); // readable by the user bots run as when the runner is root
    fs.writeFileSync(path.join(dir, "hostile.mjs"), HOSTILE);
    fs.writeFileSync(path.join(dir, "fork-bomb.mjs"), FORK_BOMB);
    fs.writeFileSync(path.join(dir, "memory-hog.mjs"), MEMORY_HOG);
    const env = { HOSTILE_DATA: t.config.dataDir, HOSTILE_PID: String(process.pid) };
    fs.writeFileSync(
      path.join(dir, "bots.json"),
      JSON.stringify({
        "review-pr": { command: ["node", "hostile.mjs"], providers: ["anthropic"], env, timeout_seconds: 600 },
        improve: { command: ["node", "hostile.mjs"], providers: ["anthropic"], env, timeout_seconds: 8 },
        "fork-bomb": { command: ["node", "fork-bomb.mjs"], timeout_seconds: 20, limits: { processes: 64 } },
        "memory-hog": { command: ["node", "memory-hog.mjs"], timeout_seconds: 120, limits: { memory_mib: 256 } },
        "disk-filler": { command: DISK_FILLER, timeout_seconds: 120, limits: { file_size_mib: 8 } },
      }),
    );
    runner = inProcessRunner(t.services, new BotCommands(path.join(dir, "bots.json")), { concurrency: 2, sandbox });
  });
  afterAll(async () => {
    await runner?.stop();
    await t.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const reportOf = async (runId: string): Promise<Report> => {
    for (let i = 0; i < 300; i++) {
      const log = String((await s.admin.call("GET", `/api/runs/${runId}/attempts/1/log`)).body);
      const line = /^report ([0-9a-f]+)$/m.exec(log);
      if (line) return JSON.parse(Buffer.from(line[1]!, "hex").toString("utf8")) as Report;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no report from ${runId}`);
  };

  const expectConfined = (r: Report, own: string, other: string) => {
    expect(r.sealKey.ok).toBe(false);
    expect(r.db.ok).toBe(false);
    expect(r.wal.ok).toBe(false);
    expect(r.serviceEnviron.ok).toBe(false);
    expect(r.write.ok).toBe(false);
    expect(fs.existsSync(path.join(t.config.dataDir, "pwned"))).toBe(false);
    // Its parent in the sandbox is the sandbox's init, which holds the attempt's own environment and nothing more.
    if (r.parentEnviron.ok)
      expect(
        r.parentEnviron
          .text!.split("\0")
          .filter(Boolean)
          .every((v) => r.ownEnv.includes(v)),
      ).toBe(true);
    const everything = JSON.stringify(r);
    expect(everything).toContain(own);
    for (const secret of [other, SEAL, t.adminToken]) expect(everything).not.toContain(secret);
    expect(everything).not.toContain("SERVICE_");
    for (const environ of Object.values(r.environs))
      expect(
        environ
          .split("\0")
          .filter(Boolean)
          .every((v) => r.ownEnv.includes(v)),
      ).toBe(true);
    // A private /tmp: no other attempt's working directory in it.
    expect(r.tmp.filter((name) => name.startsWith("bot-attempt-"))).toEqual([path.basename(r.cwd)]);
  };

  it("cannot reach the service's files, environment or another run's credentials, and leaves nothing behind after a cancel or a timeout", async () => {
    const teamA = (await s.admin.post(`/api/orgs/${s.org.id}/teams`, { name: "Hostile A", max_concurrent_runs: 1 })).body;
    const teamB = (await s.admin.post(`/api/orgs/${s.org.id}/teams`, { name: "Hostile B", max_concurrent_runs: 1 })).body;
    await s.admin.post(`/api/teams/${teamA.id}/keys`, { provider: "anthropic", name: "a", secret: KEY_A });
    await s.admin.post(`/api/teams/${teamB.id}/keys`, { provider: "anthropic", name: "b", secret: KEY_B });
    const gated = (teamId: string, botId: string) =>
      t.services.launcher.launch({ teamId, botId, vars: {}, source: "api", actor: { userId: null, kind: "user" } });
    const a = await gated(teamA.id, "review-pr");
    const b = await gated(teamB.id, "improve");
    if (a.kind !== "launched" || b.kind !== "launched") throw new Error("denied");
    const startedAt = Date.now();
    expect(await runner.tick()).toBe(2);

    const [ra, rb] = await Promise.all([reportOf(a.run.id), reportOf(b.run.id)]);
    expectConfined(ra, KEY_A, KEY_B);
    expectConfined(rb, KEY_B, KEY_A);
    expect(ra.cwd).not.toBe(rb.cwd);
    expect(leftOf(a.run.id)).toHaveLength(2); // the SIGTERM-proof child and the detached sleeper

    // Cancel: the bot, its SIGTERM-proof child and its detached sleeper all end, within the kill grace.
    const cancelledAt = Date.now();
    await s.admin.post(`/api/runs/${a.run.id}/cancel`);
    await runner.heartbeatAll();
    const runOf = async (id: string) => (await s.admin.get(`/api/runs/${id}`)).body;
    await pollRun(
      () => runOf(a.run.id),
      (run) => run.status === "cancelled",
      cancelledAt,
      KILL_GRACE_MS + 5000,
    );
    expect(leftOf(a.run.id)).toEqual([]);
    expect(fs.existsSync(ra.cwd)).toBe(false);
    // The team's slot is free: its next run is admitted.
    const next = await gated(teamA.id, "review-pr");
    expect(next.kind).toBe("launched");
    if (next.kind === "launched") await t.services.runQueue.cancel(next.run.id);

    // Timeout: the same, from the bot's timeout.
    const ended = await pollRun(
      () => runOf(b.run.id),
      (run) => run.status !== "running",
      startedAt,
      8000 + KILL_GRACE_MS + 5000,
    );
    expect(ended).toMatchObject({ status: "failed", failure_code: "TIMEOUT" });
    expect(leftOf(b.run.id)).toEqual([]);
    expect(fs.existsSync(rb.cwd)).toBe(false);
    const afterB = await gated(teamB.id, "improve");
    expect(afterB.kind).toBe("launched");
    if (afterB.kind === "launched") await t.services.runQueue.cancel(afterB.run.id);
    await runner.idle();
  }, 60_000);

  it("leaves nothing behind when its runner stops", async () => {
    const team = (await s.admin.post(`/api/orgs/${s.org.id}/teams`, { name: "Hostile C" })).body;
    await s.admin.post(`/api/teams/${team.id}/keys`, { provider: "anthropic", name: "c", secret: KEY_A });
    const c = await t.services.launcher.launch({ teamId: team.id, botId: "review-pr", vars: {}, source: "api", actor: { userId: null, kind: "user" } });
    if (c.kind !== "launched") throw new Error("denied");
    const own = inProcessRunner(t.services, new BotCommands(path.join(dir, "bots.json")), { concurrency: 1, sandbox: testSandbox(t.config) });
    expect(await own.tick()).toBe(1);
    const rc = await reportOf(c.run.id);
    expect(leftOf(c.run.id)).toHaveLength(2);
    const stoppedAt = Date.now();
    await own.stop();
    expect(Date.now() - stoppedAt).toBeLessThan(KILL_GRACE_MS + 5000);
    expect(leftOf(c.run.id)).toEqual([]);
    expect(fs.existsSync(rc.cwd)).toBe(false);
    expect((await s.admin.get(`/api/runs/${c.run.id}`)).body).toMatchObject({ status: "failed_resumable", failure_code: "RUNNER_STOPPED" });
  }, 60_000);

  it("is bounded by its limits: a fork bomb stays within its process limit, and a process past its memory or file size limit fails the attempt, which names the limit", async () => {
    const sandbox = testSandbox(t.config);
    if (!sandbox.limits) throw new Error("SERVICE_TEST_REQUIRE_SANDBOX=1 but no resource limits here: prlimit (util-linux) is missing");
    const bomb = sandbox.limits.processes !== "off";
    const team = (await s.admin.post(`/api/orgs/${s.org.id}/teams`, { name: "Hostile D" })).body;
    for (const id of ["fork-bomb", "memory-hog", "disk-filler"]) await s.admin.post(`/api/orgs/${s.org.id}/bots`, { id, name: id });
    const launched = async (botId: string) => {
      const r = await t.services.launcher.launch({ teamId: team.id, botId, vars: {}, source: "api", actor: { userId: null, kind: "user" } });
      if (r.kind !== "launched") throw new Error(`denied: ${botId}`);
      return r.run.id;
    };
    const memory = await launched("memory-hog");
    const disk = await launched("disk-filler");
    const forks = bomb ? await launched("fork-bomb") : undefined;
    const own = inProcessRunner(t.services, new BotCommands(path.join(dir, "bots.json")), { concurrency: 3, sandbox });
    const startedAt = Date.now();
    expect(await own.tick()).toBe(bomb ? 3 : 2);
    const runOf = async (id: string) => (await s.admin.get(`/api/runs/${id}`)).body;
    const logOf = async (id: string) => String((await s.admin.call("GET", `/api/runs/${id}/attempts/1/log`)).body);
    const over = (run: { status: string }) => run.status !== "running" && run.status !== "queued";

    if (forks) {
      // While the bomb runs, the host never sees more of its shells than the limit, and can still start processes.
      let most = 0;
      while (!/^processes \d+$/m.test(await logOf(forks))) {
        most = Math.max(most, leftOf(forks).length);
        expect(Date.now() - startedAt).toBeLessThan(60_000);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(spawnSync(process.execPath, ["-e", "process.exit(7)"]).status).toBe(7);
      const seen = Number(/^processes (\d+)$/m.exec(await logOf(forks))![1]);
      expect(seen).toBeGreaterThan(8); // it did multiply…
      expect(seen).toBeLessThanOrEqual(64); // …up to the limit, and no further
      expect(most).toBeLessThanOrEqual(64);
      expect(await pollRun(() => runOf(forks), over, startedAt, 20_000 + KILL_GRACE_MS + 30_000)).toMatchObject({ status: "failed", failure_code: "TIMEOUT" });
      expect(leftOf(forks)).toEqual([]);
      expect(await logOf(forks)).toMatch(/Cannot fork/);
    }

    const hog = await pollRun(() => runOf(memory), over, startedAt, 90_000);
    expect(hog).toMatchObject({ status: "failed", failure_code: "RESOURCE_LIMIT" });
    expect(hog.failure_detail).toMatch(/^stopped at its memory limit 256 MiB per process: its output says "allocation failed" \(exit code 1\)$/);
    const allocated = [...(await logOf(memory)).matchAll(/^allocated (\d+) MiB$/gm)].map((m) => Number(m[1]));
    expect(Math.max(0, ...allocated)).toBeLessThan(256);

    const filler = await pollRun(() => runOf(disk), over, startedAt, 90_000);
    expect(filler).toMatchObject({
      status: "failed",
      failure_code: "RESOURCE_LIMIT",
      failure_detail: "killed: file size limit 8 MiB (SIGXFSZ, exit code 153)",
    });
    expect(await logOf(disk)).toContain(`size ${8 * 2 ** 20}`);
    await own.idle();
  }, 120_000);
});

/** Reads the run every 50 ms until `done` holds, failing once `boundMs` have passed since `since`; the run as read last. */
async function pollRun(read: () => Promise<any>, done: (run: any) => boolean, since: number, boundMs: number): Promise<any> {
  for (;;) {
    const run = await read();
    if (done(run)) return run;
    expect(Date.now() - since).toBeLessThan(boundMs);
    await new Promise((r) => setTimeout(r, 50));
  }
}
