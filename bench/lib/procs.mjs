// Child processes of the benchmark (service, bare server, wrk): started here, all stopped on
// exit, on Ctrl-C and on failure. Plus free ports, readiness polling and RSS sampling.
import { spawn } from "node:child_process";
import { createWriteStream, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";

const children = new Set();
const cleanups = [];

/** Registers fn to run (once, in reverse order) before the process exits. */
export function onCleanup(fn) {
  cleanups.push(fn);
}

let cleaning = null;
export function cleanupAll() {
  cleaning ??= (async () => {
    for (const child of children) stopChild(child);
    await Promise.all([...children].map((c) => c.exited));
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        process.stderr.write(`cleanup: ${err?.message ?? err}\n`);
      }
    }
  })();
  return cleaning;
}

for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => {
    process.stderr.write(`\n${sig}: stopping every process the benchmark started\n`);
    cleanupAll().finally(() => process.exit(130));
  });
}
process.on("exit", () => {
  for (const child of children) {
    try {
      child.kill("SIGKILL");
    } catch {}
  }
});

function stopChild(child, graceMs = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) return child.exited;
  child.kill("SIGTERM");
  const t = setTimeout(() => child.kill("SIGKILL"), graceMs);
  t.unref();
  return child.exited.finally(() => clearTimeout(t));
}

/**
 * Starts a child; stdout/stderr go to logFile (or are collected when capture is true).
 * Returns the ChildProcess with .exited (a promise of the exit code) and .output().
 */
export function start(cmd, args, { env, cwd, logFile, capture = false } = {}) {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, cwd, stdio: ["ignore", "pipe", "pipe"] });
  const chunks = [];
  if (logFile) {
    const log = createWriteStream(logFile, { flags: "a" });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
  }
  if (capture) {
    child.stdout.on("data", (c) => chunks.push(c));
    child.stderr.on("data", (c) => chunks.push(c));
  } else if (!logFile) {
    child.stdout.resume();
    child.stderr.resume();
  }
  children.add(child);
  child.exited = new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      children.delete(child);
      resolve(code ?? (signal ? 128 : 1));
    });
    child.on("error", (err) => {
      children.delete(child);
      chunks.push(Buffer.from(String(err)));
      resolve(127);
    });
  });
  child.output = () => Buffer.concat(chunks).toString("utf8");
  child.stop = (graceMs) => stopChild(child, graceMs);
  return child;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls url until it answers 200, the child exits, or timeoutMs passes. */
export async function waitReady(url, child, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`process exited (code ${child.exitCode}) before ${url} answered`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {}
    await sleep(100);
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs / 1000} s`);
}

function statusField(pid, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Peak RSS of pids over a window: resets each process's high-water mark (clear_refs 5, Linux
 * >= 4.0) at the start, samples VmRSS every 100 ms, and at stop() returns per pid the larger
 * of the sampled maximum and VmHWM (exact when the reset worked), and their sum.
 */
export function rssWindow(pids) {
  const reset = pids.map((pid) => {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, "5");
      return true;
    } catch {
      return false;
    }
  });
  const max = pids.map((pid) => statusField(pid, "VmRSS") ?? 0);
  const timer = setInterval(() => {
    pids.forEach((pid, i) => {
      max[i] = Math.max(max[i], statusField(pid, "VmRSS") ?? 0);
    });
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      const per = pids.map((pid, i) => {
        const hwm = reset[i] ? (statusField(pid, "VmHWM") ?? 0) : 0;
        return Math.max(max[i], hwm);
      });
      return { perProcess: per, total: per.reduce((a, b) => a + b, 0), hwmReset: reset.every(Boolean) };
    },
  };
}
