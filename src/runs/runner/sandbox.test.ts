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
