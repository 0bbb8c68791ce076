import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../config/config.js";
import { createLogger } from "../../config/logger.js";
import { chooseSandbox, closeHiddenDirs, openSandbox, Sandbox, SandboxUnavailable, type SandboxProbe } from "./sandbox.js";

const NOBODY = { name: "nobody", uid: 65534, gid: 65534 };
const machine = (o: Partial<SandboxProbe> & { bwrap?: boolean }): SandboxProbe => ({
  platform: "linux",
  uid: 1000,
  bwrapWorks: () => o.bwrap ?? false,
  lookupUser: (name) => (name === "nobody" ? NOBODY : undefined),
  kernel: "6.1.0-28-amd64",
  prlimit: () => "/usr/bin/prlimit",
  ceilings: () => ({ nofile: 2048 }),
  ...o,
});
const auto = { mode: "auto" as const, user: "nobody" };

describe("choosing the sandbox", () => {
  it("takes bubblewrap where it works, dropping to SERVICE_RUNNER_USER as root", () => {
    expect(chooseSandbox(auto, ["/srv/data"], machine({ bwrap: true }))).toMatchObject({ mode: "bwrap", user: undefined, warning: undefined });
    expect(chooseSandbox(auto, ["/srv/data"], machine({ bwrap: true, uid: 0 }))).toMatchObject({ mode: "bwrap+user", user: NOBODY, warning: undefined });
  });

  it("drops to the user alone as root without bubblewrap, and says what that leaves open", () => {
    const s = chooseSandbox(auto, ["/srv/data"], machine({ uid: 0 }));
    expect(s).toMatchObject({ mode: "user", user: NOBODY });
    expect(s.warning).toMatch(/share that user.*environment.*setsid.*bubblewrap/);
  });

  it.each([
    ["not root and no bubblewrap", machine({}), auto, /bubblewrap is not available/],
    ["not Linux", machine({ platform: "darwin", bwrap: true }), auto, /no sandbox on darwin/],
    ["turned off", machine({ bwrap: true, uid: 0 }), { mode: "none" as const, user: "nobody" }, /SERVICE_RUNNER_SANDBOX=none/],
  ])("runs bots unprotected only with a warning naming what a bot could read and the fix (%s)", (_label, probe, settings, why) => {
    const s = chooseSandbox(settings, ["/srv/data"], probe);
    expect(s.mode).toBe("none");
    expect(s.warning).toMatch(why);
    for (const named of [
      "/srv/data",
      "database and its WAL",
      "seal.key",
      "/proc/<pid>/environ",
      "SERVICE_ADMIN_TOKEN",
      "SERVICE_PLATFORM_KEY_",
      "other attempts' credentials",
    ]) {
      expect(s.warning).toContain(named);
    }
    for (const fix of ["apt-get install bubblewrap", "SERVICE_RUNNER_USER", "their own user or in a container", "docs/security-model.md"])
      expect(s.warning).toContain(fix);
  });

  it("refuses to start when the isolation asked for cannot be had", () => {
    expect(() => chooseSandbox({ mode: "bwrap", user: "nobody" }, [], machine({}))).toThrow(SandboxUnavailable);
    expect(() => chooseSandbox({ mode: "user", user: "nobody" }, [], machine({}))).toThrow(/must run as root/);
    expect(() => chooseSandbox({ mode: "auto", user: "nosuchuser" }, [], machine({ uid: 0 }))).toThrow(/no user "nosuchuser"/);
    expect(() => chooseSandbox({ mode: "auto", user: "0" }, [], machine({ uid: 0, lookupUser: () => ({ name: "0", uid: 0, gid: 0 }) }))).toThrow(
      /not run as root/,
    );
  });

  it("says the warning at start when isolation is unavailable (forced by SERVICE_RUNNER_SANDBOX=none)", () => {
    const config = loadConfig({ SERVICE_RUNNER_SANDBOX: "none", SERVICE_DATA_DIR: "/srv/house" });
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const sandbox = openSandbox(config.runnerSandbox, [config.dataDir], createLogger("info", sink));
    expect(sandbox.mode).toBe("none");
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].msg).toMatch(
      /^bots run without a sandbox \(SERVICE_RUNNER_SANDBOX=none\).*\/srv\/house.*seal\.key.*SERVICE_ADMIN_TOKEN.*install bubblewrap/,
    );
    expect(lines.map((l) => JSON.parse(l)).find((l) => l.level === 30)).toMatchObject({ sandbox: "none" });
  });

  it("rejects a bad setting with the configuration's other problems", () => {
    const bad = () => loadConfig({ SERVICE_RUNNER_SANDBOX: "docker", SERVICE_RUNNER_USER: "a b" });
    expect(bad).toThrow(/SERVICE_RUNNER_SANDBOX: must be one of auto, bwrap, user, none/);
    expect(bad).toThrow(/SERVICE_RUNNER_USER: a user name, a uid or uid:gid/);
  });

  it("makes a world-readable data directory private when bots run as another user", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "data-"));
    try {
      fs.chmodSync(dir, 0o755);
      expect(closeHiddenDirs(Sandbox.none([dir]))).toEqual([]);
      expect(fs.statSync(dir).mode & 0o777).toBe(0o755);
      expect(closeHiddenDirs(new Sandbox("user", [dir], NOBODY))).toEqual([dir]);
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("bounding each attempt's processes", () => {
  const bot = { timeoutMs: 600_000 };

  it("counts processes per attempt under bubblewrap on Linux 5.14 and later, per bot user without it, and not at all as the runner's own user", () => {
    const count = (probe: SandboxProbe) => chooseSandbox(auto, [], probe).limits?.processes;
    expect(count(machine({ bwrap: true }))).toBe("attempt");
    expect(count(machine({ bwrap: true, uid: 0 }))).toBe("attempt");
    expect(count(machine({ uid: 0 }))).toBe("user");
    expect(count(machine({ bwrap: true, uid: 0, kernel: "5.10.0-30-amd64" }))).toBe("user");
    expect(count(machine({ bwrap: true, kernel: "5.10.0-30-amd64" }))).toBe("off");
    expect(count(machine({}))).toBe("off");
    expect(chooseSandbox(auto, [], machine({ uid: 0 })).limitsFor(bot)).toHaveProperty("processes", 1024);
    expect(chooseSandbox(auto, [], machine({ bwrap: true, kernel: "5.10.0-30-amd64" })).limitsFor(bot)).not.toHaveProperty("processes");
    expect(chooseSandbox(auto, [], machine({})).limitsFor(bot)).not.toHaveProperty("processes");
  });

  it("gives every attempt the defaults, the bot's own limits over them, within the runner's hard limits", () => {
    const s = chooseSandbox(auto, [], machine({ bwrap: true }));
    expect(s.limitsFor(bot)).toEqual({ memoryBytes: 4096 * 2 ** 20, processes: 1024, fileSizeBytes: 2048 * 2 ** 20, openFiles: 2048, cpuSeconds: 1200 });
    expect(s.limitsFor({ timeoutMs: 30_000, limits: { memoryMib: 512, processes: null, cpuSeconds: 10 } })).toEqual({
      memoryBytes: 512 * 2 ** 20,
      fileSizeBytes: 2048 * 2 ** 20,
      openFiles: 2048,
      cpuSeconds: 10,
    });
    const configured = { ...auto, limits: { memoryMib: null, processes: 64, fileSizeMib: 1, openFiles: 100, cpuSeconds: null } };
    expect(chooseSandbox(configured, [], machine({ bwrap: true })).limitsFor(bot)).toEqual({ processes: 64, fileSizeBytes: 2 ** 20, openFiles: 100 });
  });

  it("sets none where prlimit is missing or the machine is not Linux, and says so at start", () => {
    expect(chooseSandbox(auto, [], machine({ bwrap: true, prlimit: () => undefined })).limitsFor(bot)).toBeUndefined();
    expect(chooseSandbox(auto, [], machine({ platform: "darwin", bwrap: true })).limitsFor(bot)).toBeUndefined();
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    openSandbox(auto, [], createLogger("info", sink), machine({ bwrap: true, prlimit: () => undefined }));
    expect(lines.map((l) => JSON.parse(l)).find((l) => l.level === 40)?.msg).toMatch(/^bots run without resource limits: prlimit \(util-linux\)/);
  });

  it("reads the limits' defaults from SERVICE_RUNNER_LIMIT_* (0: none), and rejects what is not a whole number", () => {
    const config = loadConfig({
      SERVICE_RUNNER_SANDBOX: "auto",
      SERVICE_RUNNER_USER: "nobody",
      SERVICE_RUNNER_LIMIT_MEMORY_MIB: "8192",
      SERVICE_RUNNER_LIMIT_PROCESSES: "0",
      SERVICE_RUNNER_LIMIT_CPU_SECONDS: "900",
    });
    expect(config.runnerSandbox.limits).toEqual({ memoryMib: 8192, processes: null, fileSizeMib: 2048, openFiles: 4096, cpuSeconds: 900 });
    expect(config.warnings).toEqual([]);
    expect(() => loadConfig({ SERVICE_RUNNER_LIMIT_FILE_SIZE_MIB: "1G" })).toThrow(
      /SERVICE_RUNNER_LIMIT_FILE_SIZE_MIB: must be a whole number \(0: no limit\)/,
    );
  });
});
