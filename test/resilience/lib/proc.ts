/**
 * Real service processes for the resilience suite: `node dist/main.js` children on loopback,
 * each with its own port and data dir, tracked so that nothing outlives the test file.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { request } from "./http.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** The service under test; RESILIENCE_MAIN points at another build (e.g. a candidate fix). */
export const MAIN = process.env.RESILIENCE_MAIN ?? path.join(ROOT, "dist/main.js");
/** The Node flags `npm start` runs the service with (its heap sizing), read from package.json. */
export const START_NODE_ARGS: string[] = (() => {
  const start = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start;
  return /\bnode ((?:--\S+ )*)dist\/main\.js/.exec(start)?.[1]?.trim().split(" ").filter(Boolean) ?? [];
})();
export const ADMIN_TOKEN = `iap_resilience_${"R".repeat(30)}`;

const SHARED_SEAL_KEY = Buffer.alloc(32, 7).toString("base64");

const live = new Set<ChildProcess>();
const tempDirs = new Set<string>();

/** A port the kernel just handed out on 127.0.0.1 (closed again before it is returned). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `resil-${prefix}-`));
  tempDirs.add(dir);
  return dir;
}

export interface ServiceOptions {
  /** Script to run instead of dist/main.js (the negative control). */
  script?: string;
  port?: number;
  dataDir?: string;
  databaseUrl?: string;
  env?: Record<string, string>;
  readyTimeoutMs?: number;
  /** Node flags before the script (npm start's heap flags, say). */
  nodeArgs?: string[];
}

export interface Service {
  readonly port: number;
  readonly dataDir: string;
  readonly base: string;
  readonly pid: number;
  readonly proc: ChildProcess;
  /** Last ~64 KiB of stdout + stderr. */
  output(): string;
  alive(): boolean;
  /** SIGKILL and wait for the exit. */
  kill9(): Promise<void>;
  /** SIGTERM, wait up to `ms` for the exit, then SIGKILL. */
  stop(ms?: number): Promise<void>;
  /** Resident set size in bytes from /proc/<pid>/status (0 when gone). */
  rssBytes(): number;
  /** The process's peak resident set size so far (VmHWM), in bytes. */
  peakRssBytes(): number;
}

export async function startService(opts: ServiceOptions = {}): Promise<Service> {
  const port = opts.port ?? (await freePort());
  const dataDir = opts.dataDir ?? tempDir("data");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    SERVICE_HOST: "127.0.0.1",
    SERVICE_PORT: String(port),
    SERVICE_DATA_DIR: dataDir,
    SERVICE_ADMIN_TOKEN: ADMIN_TOKEN,
    SERVICE_RUNNER: "none",
    SERVICE_LOG_LEVEL: "warn",
    SERVICE_WEBHOOK_SYNC_DEBOUNCE: "0",
    // Replicas on one PostgreSQL must share the seal key (each data dir would mint its own).
    ...(opts.databaseUrl ? { SERVICE_DATABASE_URL: opts.databaseUrl, SERVICE_SEAL_KEY: SHARED_SEAL_KEY } : {}),
    ...opts.env,
  };
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), opts.script ?? MAIN], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  live.add(proc);
  let out = "";
  const keep = (chunk: Buffer) => {
    out += chunk.toString("utf8");
    if (out.length > 65536) out = out.slice(-65536);
  };
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    proc.once("exit", () => {
      exited = true;
      live.delete(proc);
      resolve();
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  const svc: Service = {
    port,
    dataDir,
    base,
    proc,
    pid: proc.pid!,
    output: () => out,
    alive: () => !exited,
    kill9: async () => {
      if (!exited) proc.kill("SIGKILL");
      await exit;
    },
    stop: async (ms = 10_000) => {
      if (exited) return;
      proc.kill("SIGTERM");
      const t = setTimeout(() => proc.kill("SIGKILL"), ms);
      await exit;
      clearTimeout(t);
    },
    rssBytes: () => procStatusBytes(proc.pid!, "VmRSS"),
    peakRssBytes: () => procStatusBytes(proc.pid!, "VmHWM"),
  };
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (exited) throw new Error(`service exited before ready:\n${out}`);
    try {
      const r = await request(`${base}/readyz`, { timeoutMs: 1000 });
      if (r.status === 200) return svc;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await svc.kill9();
      throw new Error(`service not ready within ${opts.readyTimeoutMs ?? 30_000} ms:\n${out}`);
    }
    await sleep(50);
  }
}

/** A size line of /proc/<pid>/status in bytes (0 when the process is gone). */
function procStatusBytes(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Kills every process this file started that is still running, and removes temp dirs. */
export async function cleanupAll(): Promise<void> {
  await Promise.all(
    [...live].map(
      (p) =>
        new Promise<void>((resolve) => {
          if (p.exitCode !== null || p.signalCode !== null) return resolve();
          p.once("exit", () => resolve());
          p.kill("SIGKILL");
        }),
    ),
  );
  for (const d of tempDirs) {
    try {
      rmSync(d, { recursive: true, force: true });
    } catch {
      // best effort
    }
  }
  tempDirs.clear();
}

process.once("exit", () => {
  for (const p of live) p.kill("SIGKILL");
});

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Deterministic PRNG (mulberry32) so a failing run can be replayed from its seed. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
    bytes: (n: number) => {
      const b = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i++) b[i] = Math.floor(next() * 256);
      return b;
    },
  };
}
export type Prng = ReturnType<typeof prng>;

/** The service's own error log lines (pino JSON at level ≥ 50), the first few. */
export function errorLines(s: Service, max = 3): string {
  return s
    .output()
    .split("\n")
    .filter((l) => /"level":(50|60)/.test(l))
    .slice(0, max)
    .join("\n");
}
