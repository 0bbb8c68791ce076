// wrk (Debian's package): installed when missing, driven with bench/lua/delivery.lua, its
// done() hook printing one BENCH_JSON line that is parsed here.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { start } from "./procs.mjs";

const LUA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../lua");
const SCRIPT = path.join(LUA_DIR, "delivery.lua");

function which(cmd) {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" }).stdout.trim();
}

/** Returns the wrk binary, installing Debian's `wrk` package first when it is missing. */
export function ensureWrk(log) {
  let bin = which("wrk");
  if (bin) return bin;
  const root = process.getuid?.() === 0;
  log("wrk is not installed: installing Debian's wrk package (apt-get install -y wrk)");
  const run = (args) => {
    const cmd = root ? args : ["sudo", "-n", ...args];
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    return spawnSync(cmd[0], cmd.slice(1), { stdio: "inherit", env }).status === 0;
  };
  const known = spawnSync("apt-cache", ["policy", "wrk"], { encoding: "utf8" }).stdout ?? "";
  if (!/Candidate: (?!\(none\))/.test(known)) run(["apt-get", "update", "-qq"]);
  const installed = run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "wrk"]);
  bin = installed ? which("wrk") : undefined;
  if (!bin) {
    throw new Error("could not install wrk: run `apt-get update && apt-get install -y wrk` as root (Debian/Ubuntu), then `npm run bench` again");
  }
  return bin;
}

export const newNonce = () => randomBytes(4).toString("hex");

/**
 * Writes the Lua conf for one wrk run into dir. req:
 *   { mode: "unique"|"replay"|"static", path, headers: string[], key?, prefixFile?, suffixFile?,
 *     sha?, delivery?, bodyFile?, rate?, threads }
 */
export function writeConf(dir, name, req) {
  const lines = [`mode ${req.mode}`, `path ${req.path}`, `nonce ${req.nonce ?? newNonce()}`, `threads ${req.threads}`];
  if (req.key) lines.push(`key ${req.key}`);
  if (req.prefixFile) lines.push(`prefix ${req.prefixFile}`, `suffix ${req.suffixFile}`);
  if (req.sha) lines.push(`sha ${req.sha}`);
  if (req.delivery) lines.push(`delivery ${req.delivery}`);
  if (req.bodyFile) lines.push(`body ${req.bodyFile}`);
  if (req.rate) lines.push(`rate ${req.rate}`);
  for (const h of req.headers ?? []) lines.push(`header ${h}`);
  const file = path.join(dir, `${name}.conf`);
  writeFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600 });
  return file;
}

/**
 * One wrk run: { url, conf, threads, connections, seconds } → parsed BENCH_JSON, plus
 * requests_per_s. Bounded: killed if it runs 30 s past its duration.
 */
export async function runWrk(bin, { url, conf, threads, connections, seconds, timeoutS = 10 }) {
  const args = [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, `--timeout`, `${timeoutS}s`, "-s", SCRIPT, url, "--", conf];
  const child = start(bin, args, { env: { BENCH_LUA_DIR: LUA_DIR }, capture: true });
  const guard = setTimeout(() => child.kill("SIGKILL"), (seconds + 30) * 1000);
  const code = await child.exited;
  clearTimeout(guard);
  const out = child.output();
  const line = out.split("\n").find((l) => l.startsWith("BENCH_JSON "));
  if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}):\n${out.slice(-2000)}`);
  const r = JSON.parse(line.slice("BENCH_JSON ".length));
  r.requests_per_s = r.requests / (r.duration_us / 1e6);
  r.non2xx = r.errors.status;
  r.socket_errors = r.errors.connect + r.errors.read + r.errors.write + r.errors.timeout;
  return r;
}

/**
 * Several wrk runs at once (one per service process); requests and errors add up, latency
 * percentiles are the worst of the runs (a conservative merge: wrk does not export its histogram).
 */
export async function runWrkParallel(bin, runs) {
  const results = await Promise.all(runs.map((r) => runWrk(bin, r)));
  if (results.length === 1) return results[0];
  const sum = (f) => results.reduce((a, r) => a + f(r), 0);
  const worst = (k) => Math.max(...results.map((r) => r.latency_us[k]));
  return {
    requests: sum((r) => r.requests),
    duration_us: Math.max(...results.map((r) => r.duration_us)),
    bytes: sum((r) => r.bytes),
    requests_per_s: sum((r) => r.requests_per_s),
    non2xx: sum((r) => r.non2xx),
    socket_errors: sum((r) => r.socket_errors),
    errors: results.map((r) => r.errors),
    latency_us: {
      min: Math.min(...results.map((r) => r.latency_us.min)),
      max: worst("max"),
      mean:
        sum((r) => r.latency_us.mean * r.requests) /
        Math.max(
          1,
          sum((r) => r.requests),
        ),
      p50: worst("p50"),
      p90: worst("p90"),
      p99: worst("p99"),
      p999: worst("p999"),
    },
    parts: results,
  };
}
