import { spawnSync, type SpawnOptions } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Logger } from "pino";
import type { RunnerSandboxSettings } from "../../config/config.js";
import { DEFAULT_RESOURCE_LIMITS, type ResourceLimits } from "../../config/resource-limits.js";
import {
  type AppliedLimits,
  attemptLimits,
  type Ceilings,
  countsPerNamespace,
  type LimitPlan,
  parseCeilings,
  prlimitArgs,
  type ProcessCount,
} from "./attempt-limits.js";

/**
 * How a runner isolates each attempt (docs/security-model.md):
 * - `bwrap`: bubblewrap gives the bot a read-only view of `/`, a private `/tmp`, `/proc` and PID
 *   namespace (it sees no other process), and hides the service's data directory;
 * - `user`: the bot runs as an unprivileged user (SERVICE_RUNNER_USER) when the runner is root;
 * - `bwrap+user`: both;
 * - `none`: the bot runs as the runner's own user and can reach what it can (the start warns).
 */
export type SandboxMode = "bwrap+user" | "bwrap" | "user" | "none";

export interface BotUser {
  name: string;
  uid: number;
  gid: number;
}

/** What the machine offers; injectable so the choice can be tested without root or bubblewrap. */
export interface SandboxProbe {
  platform: NodeJS.Platform;
  /** The runner's own uid (undefined where there is none, on Windows). */
  uid: number | undefined;
  /** Whether `bwrap` starts a sandbox of the shape used for bots, as `user` when given. */
  bwrapWorks(user?: BotUser): boolean;
  /** The user SERVICE_RUNNER_USER names, or undefined. */
  lookupUser(name: string): BotUser | undefined;
  /** The kernel's release (`uname -r`). */
  kernel: string;
  /** prlimit (util-linux), when it is on PATH and runs. */
  prlimit(): string | undefined;
  /** The runner's own hard limits. */
  ceilings(): Ceilings;
}

export class SandboxUnavailable extends Error {}

/** The isolation every attempt of one runner gets. */
export class Sandbox {
  constructor(
    readonly mode: SandboxMode,
    /** Folders the bot must not see: the service's data directory (database, WAL, seal key). */
    readonly hide: string[],
    /** The user bots run as, when the runner drops to one. */
    readonly user?: BotUser,
    /** Said once at start where isolation is missing or partial: what a bot could reach and how to fix it. */
    readonly warning?: string,
    /** How each attempt's processes are bounded; undefined: not at all (no prlimit, or not Linux). */
    readonly limits?: LimitPlan,
  ) {}

  get usesBwrap(): boolean {
    return this.mode === "bwrap" || this.mode === "bwrap+user";
  }

  /** The limits one attempt of this bot runs under; undefined where the runner sets none. */
  limitsFor(bot: { limits?: Partial<ResourceLimits>; timeoutMs: number }): AppliedLimits | undefined {
    return this.limits && attemptLimits(this.limits, bot.limits, bot.timeoutMs);
  }

  /** No isolation at all (unit tests of the output protocol, and SERVICE_RUNNER_SANDBOX=none). */
  static none(hide: string[] = []): Sandbox {
    return new Sandbox("none", hide);
  }
}

const FIX =
  "To isolate bots, install bubblewrap (Debian: apt-get install bubblewrap), or run the runner as root with SERVICE_RUNNER_USER (an unprivileged user, default nobody), or run runners as their own user or in a container of their own (docs/security-model.md).";

/**
 * Chooses the sandbox from SERVICE_RUNNER_SANDBOX: `auto` takes bubblewrap where it works (with
 * a drop to SERVICE_RUNNER_USER when the runner is root), else the user drop when root, else
 * nothing (with a warning). An explicit `bwrap` or `user` that the machine cannot give stops the
 * start rather than run bots unprotected.
 */
export function chooseSandbox(settings: RunnerSandboxSettings, hide: string[], probe: SandboxProbe = systemProbe()): Sandbox {
  const s = chooseIsolation(settings, hide, probe);
  const prlimit = probe.platform === "linux" ? probe.prlimit() : undefined;
  if (!prlimit) return s;
  const plan = { prlimit, defaults: settings.limits ?? DEFAULT_RESOURCE_LIMITS, ceilings: probe.ceilings(), processes: processCount(s.mode, probe.kernel) };
  return new Sandbox(s.mode, s.hide, s.user, s.warning, plan);
}

/** Whose processes RLIMIT_NPROC would count, by sandbox (docs/security-model.md, "Resource limits"). */
function processCount(mode: SandboxMode, kernel: string): ProcessCount {
  // Under bubblewrap each attempt has a user namespace of its own, where the count starts afresh
  // (ucounts, Linux 5.14); before that, and without bubblewrap, it counts every process of the uid.
  if (mode === "bwrap+user" || mode === "user") return mode === "bwrap+user" && countsPerNamespace(kernel) ? "attempt" : "user";
  // Bots run as the runner's own user: the count would include the runner and all that user runs.
  if (mode === "bwrap" && countsPerNamespace(kernel)) return "attempt";
  return "off";
}

function chooseIsolation(settings: RunnerSandboxSettings, hide: string[], probe: SandboxProbe): Sandbox {
  const dirs = [...new Set(hide.map((d) => path.resolve(d)))];
  const linux = probe.platform === "linux";
  const root = probe.uid === 0;
  const user = () => botUser(probe, settings.user);
  const none = (why: string) => new Sandbox("none", dirs, undefined, noneWarning(why, dirs, probe));

  switch (settings.mode) {
    case "none":
      return none("SERVICE_RUNNER_SANDBOX=none");
    case "user":
      if (!linux || !root)
        throw new SandboxUnavailable("SERVICE_RUNNER_SANDBOX=user: the runner must run as root on Linux to drop bots to SERVICE_RUNNER_USER");
      return userOnly(user(), dirs);
    case "bwrap":
      return bwrapRequired(probe, dirs, root ? user : undefined);
    case "auto":
      return linux ? bestSandbox(probe, dirs, root ? user() : undefined, none) : none(`no sandbox on ${probe.platform}`);
  }
}

/** SERVICE_RUNNER_USER as the machine knows it: it must exist and not be root. */
function botUser(probe: SandboxProbe, name: string): BotUser {
  const found = probe.lookupUser(name);
  if (!found) throw new SandboxUnavailable(`SERVICE_RUNNER_USER: no user ${JSON.stringify(name)} on this machine`);
  if (found.uid === 0) throw new SandboxUnavailable("SERVICE_RUNNER_USER: bots must not run as root");
  return found;
}

/** SERVICE_RUNNER_SANDBOX=bwrap: bubblewrap (under the bot user when the runner is root), or no start at all. */
function bwrapRequired(probe: SandboxProbe, dirs: string[], user: (() => BotUser) | undefined): Sandbox {
  if (probe.platform !== "linux") throw new SandboxUnavailable("SERVICE_RUNNER_SANDBOX=bwrap: bubblewrap needs Linux");
  const u = user?.();
  if (!probe.bwrapWorks(u)) {
    throw new SandboxUnavailable(
      "SERVICE_RUNNER_SANDBOX=bwrap: bwrap is missing or cannot create its namespaces here (Debian: apt-get install bubblewrap; in a container, allow user namespaces)",
    );
  }
  return new Sandbox(u ? "bwrap+user" : "bwrap", dirs, u);
}

/** SERVICE_RUNNER_SANDBOX=auto on Linux: bubblewrap where it works, else the user drop when root, else nothing. */
function bestSandbox(probe: SandboxProbe, dirs: string[], u: BotUser | undefined, none: (why: string) => Sandbox): Sandbox {
  if (probe.bwrapWorks(u)) return new Sandbox(u ? "bwrap+user" : "bwrap", dirs, u);
  if (u) return userOnly(u, dirs);
  return none("bubblewrap is not available and the runner does not run as root");
}

function userOnly(u: BotUser, dirs: string[]): Sandbox {
  return new Sandbox(
    "user",
    dirs,
    u,
    `bots run as ${u.name} without bubblewrap: they cannot read the service's files or environment, but bots of attempts running at the same time share that user, so one can read another's environment (its credentials) and files, and a process a bot detaches from its group (setsid) can outlive the attempt. Install bubblewrap (Debian: apt-get install bubblewrap) to close this (docs/security-model.md).`,
  );
}

function noneWarning(why: string, dirs: string[], probe: SandboxProbe): string {
  const who = probe.uid === undefined ? "the runner's user" : `the runner's own user (uid ${probe.uid})`;
  const data = dirs.length > 0 ? `the service's data directory (${dirs.join(", ")}: the SQLite database and its WAL, the seal key seal.key), ` : "";
  return `bots run without a sandbox (${why}): each bot runs as ${who} and can read and write ${data}read the service's or runner's environment (/proc/<pid>/environ: SERVICE_ADMIN_TOKEN, SERVICE_SEAL_KEY, SERVICE_DATABASE_URL, SERVICE_PLATFORM_KEY_*, SERVICE_RUNNER_TOKEN) and other attempts' credentials, and leave processes behind after its attempt. ${FIX}`;
}

/** The machine as it is. bwrap is probed once per process (and user). */
export function systemProbe(): SandboxProbe {
  return {
    platform: process.platform,
    uid: process.getuid?.(),
    bwrapWorks: (user) => {
      const key = user ? `${user.uid}:${user.gid}` : "self";
      let works = probed.get(key);
      if (works === undefined) {
        const r = spawnSync("bwrap", [...bwrapBase(), "true"], { cwd: "/", stdio: "ignore", timeout: 10_000, ...(user && { uid: user.uid, gid: user.gid }) });
        works = r.status === 0;
        probed.set(key, works);
      }
      return works;
    },
    lookupUser,
    kernel: os.release(),
    prlimit: () => {
      if (limiter === undefined) {
        const found = (process.env.PATH ?? "/usr/bin:/bin")
          .split(":")
          .map((d) => path.join(d || ".", "prlimit"))
          .find((p) => isExecutable(p));
        limiter = found && spawnSync(found, ["--core=0:0", "--", "true"], { stdio: "ignore", timeout: 10_000 }).status === 0 ? found : "";
      }
      return limiter || undefined;
    },
    ceilings: () => {
      try {
        return parseCeilings(fs.readFileSync("/proc/self/limits", "utf8"));
      } catch {
        return {};
      }
    },
  };
}
const probed = new Map<string, boolean>();
let limiter: string | undefined;

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** A user by name (through NSS, `getent`), by uid, or as uid:gid. */
export function lookupUser(name: string): BotUser | undefined {
  const numeric = /^(\d+)(?::(\d+))?$/.exec(name);
  if (numeric) return { name, uid: Number(numeric[1]), gid: Number(numeric[2] ?? numeric[1]) };
  const r = spawnSync("getent", ["passwd", name], { encoding: "utf8", timeout: 10_000 });
  const fields = r.status === 0 ? r.stdout.trim().split("\n")[0]?.split(":") : undefined;
  if (!fields || fields.length < 4) return undefined;
  return { name, uid: Number(fields[2]), gid: Number(fields[3]) };
}

/** The sandbox's fixed shape: `/` read-only, fresh /dev, /proc of its own PID namespace, private /tmp. */
function bwrapBase(): string[] {
  return [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--die-with-parent",
    "--new-session",
  ];
}

/** How to start one attempt's bot: the program, its arguments and spawn's options, and the attempt's working directory. */
export interface SandboxedCommand {
  file: string;
  args: string[];
  options: SpawnOptions & { cwd: string; env: Record<string, string> };
  workDir: string;
  /** Removes the working directory; called once the attempt's processes are gone. */
  cleanup(): Promise<void>;
}

/**
 * Wraps a bot's command for this sandbox. The attempt gets a fresh working directory (mode 0700,
 * owned by the bot's user, under the OS temp folder) as its cwd, HOME and TMPDIR. The
 * environment goes through spawn's `env` (never the command line, which /proc shows to all).
 * The child leads a process group of its own (`detached`), so the attempt can be ended whole.
 */
export function sandboxCommand(
  sandbox: Sandbox,
  file: string,
  args: string[],
  env: Record<string, string>,
  botsDir: string,
  limits?: AppliedLimits,
): SandboxedCommand {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "bot-attempt-"));
  const cleanup = () => fs.promises.rm(workDir, { recursive: true, force: true }).catch(() => undefined);
  try {
    if (sandbox.user) fs.chownSync(workDir, sandbox.user.uid, sandbox.user.gid);
    fs.chmodSync(workDir, 0o700);
  } catch (err) {
    void cleanup();
    throw err;
  }
  const fullEnv = { ...env, HOME: workDir, TMPDIR: workDir };
  const options = { cwd: workDir, env: fullEnv, detached: true, ...(sandbox.user && { uid: sandbox.user.uid, gid: sandbox.user.gid }) };
  // prlimit sets the limits on itself and execs the bot: inside bubblewrap, so they bind the bot
  // and not the sandbox's setup, and RLIMIT_NPROC counts in the attempt's own user namespace.
  const bounded = sandbox.limits && limits ? [sandbox.limits.prlimit, ...prlimitArgs(limits), "--", file, ...args] : [file, ...args];
  if (!sandbox.usesBwrap) return { file: bounded[0]!, args: bounded.slice(1), options, workDir, cleanup };
  // An empty read-only folder in place of each hidden one: nothing to read, nothing to write.
  const hidden = sandbox.hide.filter((d) => isDir(d)).flatMap((d) => ["--tmpfs", d, "--remount-ro", d]);
  // The bots folder stays in view (read-only) even where it lies under the private /tmp.
  const bots = isDir(botsDir) && !sandbox.hide.some((d) => within(botsDir, d)) ? ["--ro-bind", botsDir, botsDir] : [];
  return {
    file: "bwrap",
    args: [...bwrapBase(), ...hidden, ...bots, "--bind", workDir, workDir, "--chdir", workDir, "--", ...bounded],
    options,
    workDir,
    cleanup,
  };
}

function within(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Makes the hidden folders private (0700) when bots run as another user: a data directory
 * created world-readable would otherwise let that user read the database. Returns what changed.
 */
export function closeHiddenDirs(sandbox: Sandbox): string[] {
  if (!sandbox.user) return [];
  const changed: string[] = [];
  for (const dir of sandbox.hide) {
    try {
      const st = fs.statSync(dir);
      if (st.isDirectory() && (st.mode & 0o077) !== 0) {
        fs.chmodSync(dir, st.mode & 0o700);
        changed.push(dir);
      }
    } catch {
      // Not there (yet): nothing to close.
    }
  }
  return changed;
}

const NO_LIMITS =
  "bots run without resource limits: prlimit (util-linux) is missing or does not work here, so an attempt's processes may take all the memory, processes, disk and CPU the machine gives until its timeout. Install util-linux (Debian: apt-get install util-linux; docs/security-model.md).";

function limitsMessage(plan: LimitPlan): string {
  const counted = {
    attempt: "the process limit counts each attempt's own processes (its user namespace)",
    user: "the process limit counts every process of the bots' user on this host, all attempts together",
    off: "no process limit: bots run as the runner's own user, whose processes it would count (docs/security-model.md)",
  }[plan.processes];
  return `each attempt's processes run under resource limits (prlimit), the bots file's limits over these defaults; ${counted}`;
}

/**
 * The sandbox a runner process uses for all its attempts, said at start: its mode (info), and
 * where isolation is missing or partial a warning naming what a bot could reach and the fix.
 */
export function openSandbox(settings: RunnerSandboxSettings, hide: string[], log: Logger, probe?: SandboxProbe): Sandbox {
  const sandbox = chooseSandbox(settings, hide, probe);
  log.info({ sandbox: sandbox.mode, user: sandbox.user?.name, hidden: sandbox.hide }, "bots run sandboxed per attempt");
  if (sandbox.warning) log.warn({ sandbox: sandbox.mode }, sandbox.warning);
  const limits = sandbox.limits;
  if (limits) {
    const defaults = { ...limits.defaults, cpuSeconds: limits.defaults.cpuSeconds === undefined ? "twice timeout_seconds" : limits.defaults.cpuSeconds };
    log.info({ limits: defaults, ceilings: limits.ceilings, processCount: limits.processes }, limitsMessage(limits));
  } else log.warn({ sandbox: sandbox.mode }, NO_LIMITS);
  const closed = closeHiddenDirs(sandbox);
  if (closed.length > 0) log.info({ dirs: closed }, `made the data directory private (0700): bots run as ${sandbox.user?.name}`);
  return sandbox;
}
