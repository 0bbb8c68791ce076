// npm run bench: the real service against the bare node:http ceiling, same signed requests,
// over loopback, with wrk. Writes bench/RESULTS.md and bench/results.json.
//   node bench/run.mjs [--pg] [--seconds 10] [--fixed-seconds 30] [--warmup 2]
//                      [--connections 32] [--threads 2] [--rate 1000] [--keep]
// PostgreSQL runs when SERVICE_DATABASE_URL is set (that database is used) or --pg is given
// (a throwaway cluster from scripts/pg-cluster.sh, stopped at the end).
import { benchGateDecisions } from "./lib/gate.mjs";
import { spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { splitPayload } from "./lib/payload.mjs";
import { startPgCluster } from "./lib/pg.mjs";
import { cleanupAll, freePort, onCleanup, rssWindow, sleep, start, waitReady } from "./lib/procs.mjs";
import { writeReports } from "./lib/report.mjs";
import { adminToken as newAdminToken, call, deliveryCountsAll, deliveryHeaders, diffCounts, probeDelivery, seed, startService } from "./lib/service.mjs";
import { ensureWrk, newNonce, runWrk, runWrkParallel, writeConf } from "./lib/wrk.mjs";

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH, "..");
const MB = 1048576;

const { values: opt } = parseArgs({
  options: {
    pg: { type: "boolean", default: false },
    seconds: { type: "string", default: "10" },
    "fixed-seconds": { type: "string", default: "30" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "32" },
    threads: { type: "string", default: "2" },
    rate: { type: "string", default: "1000" },
    keep: { type: "boolean", default: false },
    // the harness's own test: a stand-in service (bench/test/fake-service.mjs)
    "service-main": { type: "string" },
    // extra node flags for the service processes, e.g. --node-arg=--cpu-prof
    "node-arg": { type: "string", multiple: true, default: [] },
  },
});
const cfg = {
  seconds: Number(opt.seconds),
  fixedSeconds: Number(opt["fixed-seconds"]),
  warmup: Number(opt.warmup),
  connections: Number(opt.connections),
  threads: Number(opt.threads),
  rate: Number(opt.rate),
};
const pgUrlFromEnv = process.env.SERVICE_DATABASE_URL ?? "";
const withPg = opt.pg || pgUrlFromEnv !== "";

const t0 = Date.now();
const log = (msg) => process.stdout.write(`[bench ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)}s] ${msg}\n`);

const workDir = mkdtempSync(path.join(os.tmpdir(), "bench-"));
const logDir = path.join(BENCH, "out");
onCleanup(() => {
  mkdirSync(logDir, { recursive: true });
  try {
    cpSync(workDir, logDir, { recursive: true, filter: (src) => !/-data|\/pg(\/|$)/.test(src) && !src.endsWith(".conf") });
  } catch {}
  if (!opt.keep) rmSync(workDir, { recursive: true, force: true });
});

const run = { meta: {}, rows: [], notes: [] };
let bareRps = null;
/**
 * The bare server, kept up through the SQLite scenarios: each one held to a ratio is measured
 * between two runs of it (the one after is the next one's before), and its ratio is to their
 * mean, so a disturbed ceiling or a drift of the machine during the run skews one ratio, not
 * all of them. `measure()` answers req/s; `last` is the run just before, while still adjacent.
 */
let ceiling = null;

// ---------------------------------------------------------------------------------------- load

/**
 * One measured load run against targets (one per process): warm-up, then the window with RSS
 * sampling and the /metrics delivery counts before and after. req builds the Lua conf; the
 * connections (`totalConnections`, --connections unless given) are split evenly among targets.
 */
async function measure({ targets, req, seconds, rate, pids, services = [], totalConnections = cfg.connections }) {
  const wrkBin = run.meta.wrkBin;
  const n = targets.length;
  const threads = n === 1 ? cfg.threads : 1;
  const connections = Math.max(1, Math.floor(totalConnections / n));
  const confFor = (label) =>
    targets.map((_, i) => writeConf(workDir, `${label}-${i}`, { ...req, threads, nonce: newNonce(), rate: rate ? rate / n : undefined }));
  if (cfg.warmup > 0) {
    const warm = confFor("warmup");
    await runWrkParallel(
      wrkBin,
      targets.map((url, i) => ({ url, conf: warm[i], threads, connections, seconds: cfg.warmup })),
    );
  }
  const confs = confFor("measure");
  const before = await deliveryCountsAll(services);
  const rss = rssWindow(pids);
  const r = await runWrkParallel(
    wrkBin,
    targets.map((url, i) => ({ url, conf: confs[i], threads, connections, seconds })),
  );
  const peak = rss.stop();
  const after = await deliveryCountsAll(services);
  return {
    requests: r.requests,
    seconds: r.duration_us / 1e6,
    rps: r.requests_per_s,
    latency: r.latency_us,
    non2xx: r.non2xx,
    socketErrors: r.socket_errors,
    rss: peak.total,
    rssPerProcess: peak.perProcess,
    outcomes: diffCounts(after, before),
  };
}

// ---------------------------------------------------------------------------------------- bare

async function startBare(secret, trackUnique) {
  const port = await freePort();
  const child = start(process.execPath, [path.join(BENCH, "bare-server.mjs"), String(port), secret], {
    env: { BARE_TRACK_UNIQUE: trackUnique ? "1" : "0" },
    logFile: path.join(workDir, "bare.log"),
  });
  const base = `http://127.0.0.1:${port}`;
  await waitReady(`${base}/stats`, child, 10_000);
  return { child, base, pid: child.pid };
}

/** Proves the Lua signer: every request accepted by the bare server (which 401s a bad HMAC), all bodies distinct. */
async function checkSignatures(files) {
  const secret = `wh_${randomBytes(32).toString("base64url")}`;
  const bare = await startBare(secret, true);
  try {
    const conf = writeConf(workDir, "sigcheck", {
      mode: "unique",
      path: "/check",
      key: secret,
      ...files,
      headers: deliveryHeaders,
      threads: cfg.threads,
    });
    const r = await runWrk(run.meta.wrkBin, { url: bare.base, conf, threads: cfg.threads, connections: cfg.connections, seconds: 1 });
    await sleep(200); // requests still in flight when wrk stopped
    const s1 = (await call(bare.base, "GET", "/stats")).json;
    const sha = randomBytes(20).toString("hex");
    const replayConf = writeConf(workDir, "sigcheck-replay", {
      mode: "replay",
      path: "/check",
      key: secret,
      ...files,
      sha,
      delivery: randomUUID(),
      headers: deliveryHeaders,
      threads: 1,
    });
    const rr = await runWrk(run.meta.wrkBin, { url: bare.base, conf: replayConf, threads: 1, connections: 2, seconds: 1 });
    await sleep(200);
    const s2 = (await call(bare.base, "GET", "/stats")).json;
    const ok = r.non2xx === 0 && rr.non2xx === 0 && s2.bad === 0 && s1.ok >= r.requests && s1.unique === s1.ok && s2.unique === s1.unique + 1;
    const msg =
      `Lua HMAC check against the bare server (it answers 401 to a bad signature): ${s2.ok} accepted, ${s2.bad} rejected; ` +
      `${s1.ok} unique-body requests with ${s1.unique} distinct signatures, then ${s2.ok - s1.ok} replays of one body`;
    if (!ok) throw new Error(`${msg}: the Lua signer is wrong`);
    log(msg);
    run.notes.push(`${msg}.`);
  } finally {
    await bare.child.stop();
  }
}

async function benchBare(files) {
  const secret = `wh_${randomBytes(32).toString("base64url")}`;
  const bare = await startBare(secret, false);
  const req = { mode: "unique", path: "/api/webhooks/forge_b/bare", key: secret, ...files, headers: deliveryHeaders };
  log(`bare ceiling: ${cfg.seconds} s as fast as possible`);
  const m = await measure({ targets: [bare.base], req, seconds: cfg.seconds, pids: [bare.pid] });
  bareRps = m.rps;
  run.rows.push({ id: "bare", name: "bare node:http ceiling (read, HMAC, JSON.parse)", store: "—", target: "max", ...m, ratio: 1 });
  log(`bare ceiling: ${m.rps.toFixed(0)} req/s, p99 ${(m.latency.p99 / 1000).toFixed(2)} ms`);

  log(`bare ceiling: ${cfg.fixedSeconds} s at ${cfg.rate}/s`);
  const f = await measure({ targets: [bare.base], req, seconds: cfg.fixedSeconds, rate: cfg.rate, pids: [bare.pid] });
  run.rows.push({
    id: "bare-fixed",
    name: "bare ceiling at a fixed rate",
    store: "—",
    target: `${cfg.rate}/s`,
    ...f,
    achievedRate: f.rps,
    rateTarget: cfg.rate,
  });
  ceiling = {
    last: null,
    async measure() {
      const r = await measure({ targets: [bare.base], req, seconds: cfg.seconds, pids: [bare.pid] });
      log(`  bare ceiling again: ${r.rps.toFixed(0)} req/s`);
      return r.rps;
    },
    stop: () => bare.child.stop(),
  };
}

// ---------------------------------------------------------------------------------------- service scenarios

const RSS_GOAL = 160 * MB;

async function serviceScenarios({ store, services, seeded, files, payload }) {
  if (ceiling) ceiling.last = null; // a fresh service and its seeding came in between
  const procs = services.length;
  const storeLabel = procs > 1 ? `${store}, ${procs} processes` : store;
  const targets = services.map((s) => s.base);
  const pids = services.map((s) => s.pid);
  const rows = [];
  const hooks = seeded.webhooks;
  const base = services[0].base;
  const prefix = store === "sqlite" ? "" : "6";

  const row = (id, name, target, goal) => ({
    id: `${prefix}${id}`,
    name: prefix ? name.replace(/^(\d)\. /, "6.$1 ") : name,
    store: storeLabel,
    target,
    goal,
  });
  const skip = (r, why) => {
    rows.push({ ...r, skipped: why });
    log(`${r.name} (${storeLabel}): not run: ${why}`);
  };
  const missingHooks = !hooks.launch || !hooks.filtered;
  const hooksWhy = `could not create the webhooks: ${seeded.webhookError ?? "no webhook"}`;

  /** probe() sends the scenario's request once from Node and says what the service answered. */
  async function deliveryScenario(r, hook, req, expect, { rate, seconds = cfg.seconds, goalCheck, probe }) {
    if (missingHooks) return skip(r, hooksWhy);
    const p = await (probe ?? (() => probeDelivery(base, hook, payload, randomBytes(20).toString("hex"))))();
    if (p.status === 404) return skip(r, `the delivery route answers 404 (${p.outcome})`);
    r.probe = p.label ?? `${p.status} ${p.outcome}`;
    log(`${r.name} (${storeLabel}): probe ${r.probe}; ${seconds} s${rate ? ` at ${rate}/s` : ""}`);
    const between = ceiling && store === "sqlite" && !rate;
    const before = between ? (ceiling.last ?? (await ceiling.measure())) : null;
    const m = await measure({ targets, req, seconds, rate, pids, services });
    Object.assign(r, m);
    if (between) {
      const after = await ceiling.measure();
      ceiling.last = after;
      r.bareAround = [before, after];
      r.ratio = m.rps / ((before + after) / 2);
    } else {
      if (ceiling) ceiling.last = null;
      if (bareRps && !rate) r.ratio = m.rps / bareRps;
    }
    const probeOk = p.status >= 200 && p.status < 300 && p.outcome === expect;
    const clean = m.non2xx === 0 && m.socketErrors === 0;
    r.met = goalCheck(r) && probeOk && clean;
    if (!probeOk) r.note = `the probe expected status ${expect}`;
    rows.push(r);
    log(
      `  ${m.rps.toFixed(0)} req/s, p50 ${(m.latency.p50 / 1000).toFixed(2)} ms, p99 ${(m.latency.p99 / 1000).toFixed(2)} ms, RSS ${(m.rss / MB).toFixed(0)} MB, non-2xx ${m.non2xx}, outcomes ${JSON.stringify(m.outcomes)}`,
    );
    return r;
  }

  const launchGoal = procs > 1 ? "≥ 1,500 launched/s and > 1 process" : store === "sqlite" ? "≥ 0.60 × bare" : "—";
  const launched = await deliveryScenario(
    row("1", "1. pull_request.opened, new head sha each", "max", launchGoal),
    hooks.launch,
    hooks.launch && deliveryReq(hooks.launch, files),
    "launched",
    { goalCheck: (r) => (store === "sqlite" ? r.ratio >= 0.6 : procs > 1 ? launchedPerS(r) >= 1500 : true) },
  );
  if (launched && !launched.skipped) launched.launchedPerS = launchedPerS(launched);
  // PostgreSQL slows as its database fills (the 1-process baseline ran on an empty one): one of
  // these processes alone, right after, so 2 processes are compared with 1 before and after.
  if (launched && !launched.skipped && procs > 1) {
    const r = {
      id: "6-1b",
      name: "6.0 pull_request.opened, 1 process again, after 6.1 (the other idle)",
      store,
      target: "max",
      goal: "baseline",
    };
    log(`${r.name}: ${cfg.seconds} s`);
    launched.oneAfterPerS = (await measureLaunched(r, [services[0]], deliveryReq(hooks.launch, files))).launchedPerS;
    rows.push(r);
    rows.push(...(await twiceTheConnections(services, deliveryReq(hooks.launch, files))));
  }

  await deliveryScenario(
    row("2", "2. same delivery, author filtered", "max", store === "sqlite" ? "≥ 0.70 × bare" : "—"),
    hooks.filtered,
    hooks.filtered && deliveryReq(hooks.filtered, files),
    "filtered",
    { goalCheck: (r) => (store === "sqlite" ? r.ratio >= 0.7 : true) },
  );

  // 3: one delivery sent once (it launches), then replayed byte for byte with its delivery id.
  {
    const sha = randomBytes(20).toString("hex");
    const delivery = randomUUID();
    const probe = async () => {
      const first = await probeDelivery(base, hooks.launch, payload, sha, delivery);
      if (first.status === 404) return first;
      const again = await probeDelivery(base, hooks.launch, payload, sha, delivery);
      return { ...again, label: `first send ${first.status} ${first.outcome}, replay ${again.status} ${again.outcome}` };
    };
    await deliveryScenario(
      row("3", "3. replays of one delivery (duplicate)", "max", store === "sqlite" ? "≥ 0.70 × bare" : "—"),
      hooks.launch,
      hooks.launch && deliveryReq(hooks.launch, files, { mode: "replay", sha, delivery }),
      "duplicate",
      { probe, goalCheck: (r) => (store === "sqlite" ? r.ratio >= 0.7 : true) },
    );
  }

  await deliveryScenario(
    row("4", `4. fixed rate ${cfg.rate}/s for ${cfg.fixedSeconds} s`, `${cfg.rate}/s`, "p99 ≤ 3 ms, p99.9 ≤ 10 ms, RSS ≤ 160 MB/process"),
    hooks.launch,
    hooks.launch && deliveryReq(hooks.launch, files),
    "launched",
    {
      rate: cfg.rate,
      seconds: cfg.fixedSeconds,
      goalCheck: (r) => {
        r.achievedRate = r.rps;
        r.rateTarget = cfg.rate;
        return r.latency.p99 <= 3000 && r.latency.p999 <= 10_000 && Math.max(...r.rssPerProcess) <= RSS_GOAL && r.rps >= 0.97 * cfg.rate;
      },
    },
  );

  // 5: POST /api/runs through the launch gate (a team member's token: super-admins bypass it).
  {
    const r = row("5", "5. POST /api/runs (launch gate)", "max", "—");
    const body = { team_id: seeded.teamId, bot: "review-pr", vars: {} };
    const p = await call(base, "POST", "/api/runs", { token: seeded.runToken, body });
    if (p.status === 404) skip(r, `POST /api/runs answers 404 (${p.text.slice(0, 80)})`);
    else {
      r.probe = `${p.status} ${p.json?.status ?? p.json?.error ?? ""} as ${seeded.runTokenKind}`.trim();
      const bodyFile = path.join(workDir, `runs-${store}.json`);
      writeFileSync(bodyFile, JSON.stringify(body));
      const req = {
        mode: "static",
        path: "/api/runs",
        bodyFile,
        headers: ["content-type: application/json", `Authorization: Bearer ${seeded.runToken}`],
      };
      log(`${r.name} (${storeLabel}): probe ${r.probe}; ${cfg.seconds} s`);
      if (ceiling) ceiling.last = null;
      const m = await measure({ targets, req, seconds: cfg.seconds, pids, services });
      Object.assign(r, m); // no ratio: the bare ceiling serves deliveries, not this request
      r.met = p.status === 201 && m.non2xx === 0 && m.socketErrors === 0 ? null : false;
      if (p.status !== 201) r.note = "the probe did not answer 201";
      rows.push(r);
      log(`  ${m.rps.toFixed(0)} req/s, p99 ${(m.latency.p99 / 1000).toFixed(2)} ms, non-2xx ${m.non2xx}`);
    }
  }
  return rows;
}

/** A signed delivery to `hook` with the payload in `files`: a new head sha each request unless `extra` says replay. */
function deliveryReq(hook, files, extra) {
  return { mode: "unique", path: hook.path, key: hook.token, ...files, headers: deliveryHeaders, ...extra };
}

/** Scenario 6's launched deliveries sent to these PostgreSQL service processes, into row `r`. */
async function measureLaunched(r, services, req, totalConnections) {
  const m = await measure({ targets: services.map((s) => s.base), req, seconds: cfg.seconds, pids: services.map((s) => s.pid), services, totalConnections });
  Object.assign(r, m, { ratio: bareRps ? m.rps / bareRps : null });
  r.launchedPerS = launchedPerS(r);
  log(`  ${m.rps.toFixed(0)} req/s, p99 ${(m.latency.p99 / 1000).toFixed(2)} ms, outcomes ${JSON.stringify(m.outcomes)}`);
  return r;
}

/**
 * Scenario 6's launched deliveries again with twice the connections, for one of the processes,
 * then for all, as information. A closed-loop load's batches hold about half of a process's
 * connections, so 32 connections split across 2 processes halve every batch
 * (`bench/ANALYSIS.md`, sections 23 and 24); the goal stays measured with 32.
 */
async function twiceTheConnections(services, req) {
  const connections = 2 * cfg.connections;
  const one = {
    id: "6-1c",
    name: `6.0 pull_request.opened, 1 process, ${connections} connections (the other idle)`,
    store: "postgresql",
    target: "max",
    goal: "—",
  };
  log(`${one.name}: ${cfg.seconds} s`);
  await measureLaunched(one, [services[0]], req, connections);
  const procs = services.length;
  const two = {
    id: "61c",
    name: `6.1 pull_request.opened, ${procs} processes, ${connections} connections (${connections / procs} each)`,
    store: `postgresql, ${procs} processes`,
    target: "max",
    goal: "—",
  };
  log(`${two.name}: ${cfg.seconds} s`);
  await measureLaunched(two, services, req, connections);
  two.note = `${two.launchedPerS.toFixed(0)} launched/s with ${procs} processes vs ${one.launchedPerS.toFixed(0)} with 1, both with ${connections} connections`;
  return [one, two];
}

/** Launched deliveries per second: from the /metrics delta when the service exports it. */
function launchedPerS(r) {
  if (r.outcomes?.launched != null) return r.outcomes.launched / r.seconds;
  return r.non2xx === 0 ? r.rps : 0;
}

function rssRow(rows, store) {
  const measured = rows.filter((r) => !r.skipped && r.rssPerProcess);
  if (!measured.length) return;
  const peak = Math.max(...measured.flatMap((r) => r.rssPerProcess));
  run.rows.push({
    id: `rss-${store}`,
    name: "peak RSS under load, any scenario (per process)",
    store,
    target: "—",
    rss: peak,
    goal: "≤ 160 MB",
    met: peak <= RSS_GOAL,
  });
}

/**
 * PostgreSQL processes run with SERVICE_DATABASE_POOL_SIZE=3. Deliveries hold one connection
 * (they are written in batches); the API's launches (6.5) lock their team's and org's rows
 * through their transaction, and with 10 connections per process 20 backends on 2 cores queued
 * on them: 860–920 POST /api/runs/s against 1,092–1,143 with 3.
 */
const PG_ENV = { SERVICE_DATABASE_POOL_SIZE: "3" };

async function startAll(store, count, databaseUrl, sealKey, token, env = databaseUrl ? PG_ENV : {}) {
  const services = [];
  for (let i = 0; i < count; i++) {
    services.push(
      await startService({
        root: ROOT,
        workDir,
        name: `service-${store}-${i + 1}`,
        adminToken: token,
        sealKey,
        databaseUrl,
        env,
        main: opt["service-main"] && path.resolve(opt["service-main"]),
        nodeArgs: opt["node-arg"],
      }),
    );
  }
  return services;
}

// ---------------------------------------------------------------------------------------- main

async function main() {
  const wrkBin = ensureWrk(log);
  const cpu = /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim() ?? os.arch();
  const payload = splitPayload();
  const files = { prefixFile: path.join(workDir, "body.prefix"), suffixFile: path.join(workDir, "body.suffix") };
  writeFileSync(files.prefixFile, payload.prefix);
  writeFileSync(files.suffixFile, payload.suffix);
  run.meta = {
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    nproc: os.availableParallelism?.() ?? os.cpus().length,
    cpu,
    memGiB: (os.totalmem() / 2 ** 30).toFixed(0),
    node: process.version,
    kernel: os.release(),
    wrk: spawnSync(wrkBin, ["-v"], { encoding: "utf8" }).stdout.split("\n")[0].split(" [")[0].trim() || "wrk",
    wrkBin,
    command: `node bench/run.mjs ${process.argv.slice(2).join(" ")}`.trim(),
    bodyBytes: payload.prefix.length + 40 + payload.suffix.length,
    ...cfg,
    postgres: withPg,
    loadavg: os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" "),
  };
  if (os.loadavg()[0] > 0.5) log(`warning: load average ${run.meta.loadavg} before the run: other work on this machine skews the numbers`);
  log(`work dir ${workDir}; ${run.meta.nproc} cores, Node ${process.version}, ${run.meta.wrk}`);

  await checkSignatures(files);
  await benchBare(files);
  const gate = await benchGateDecisions();
  run.rows.push({
    id: "gate",
    name: "launch gate decisions (decideLaunch, every check enabled, in-process)",
    store: "—",
    target: "max",
    rps: gate.rps,
    note: `${gate.decisions.toLocaleString("en")} decisions, all admitted: ${gate.admitted === gate.decisions}`,
  });

  const sealKey = randomBytes(32).toString("base64");
  const token = newAdminToken();

  // SQLite: one process, the embedded default.
  {
    log("starting the service on SQLite");
    const services = await startAll("sqlite", 1, "", sealKey, token);
    const seeded = await seed(services[0].base, token, `sqlite-${newNonce()}`, run.notes);
    const rows = await serviceScenarios({ store: "sqlite", services, seeded, files, payload });
    run.rows.push(...rows);
    rssRow(rows, "sqlite");
    await Promise.all(services.map((s) => s.child.stop(25_000)));
  }

  await ceiling?.stop();
  ceiling = null;

  if (withPg) {
    if (!pgUrlFromEnv) log("starting a throwaway PostgreSQL cluster");
    const url = pgUrlFromEnv || (await startPgCluster(ROOT, workDir, log));
    run.notes.push(
      `PostgreSQL service processes (6.x) ran with ${Object.entries(PG_ENV)
        .map(([k, v]) => `${k}=${v}`)
        .join(" ")}: on 2 cores shared with wrk and PostgreSQL, 10 connections per process queued on the rows the API's launches lock.`,
    );
    // 1 process: the launch scenario alone, as the baseline of scenario 6.
    log("starting 1 service process on PostgreSQL");
    let one = null;
    {
      const services = await startAll("pg1", 1, url, sealKey, token);
      const seeded = await seed(services[0].base, token, `pg1-${newNonce()}`, run.notes);
      if (seeded.webhooks.launch) {
        const r = { id: "6-1", name: "6.0 pull_request.opened, 1 process (baseline)", store: "postgresql", target: "max", goal: "baseline" };
        const p = await probeDelivery(services[0].base, seeded.webhooks.launch, payload, randomBytes(20).toString("hex"));
        r.probe = `${p.status} ${p.outcome}`;
        if (p.status === 404) run.rows.push({ ...r, skipped: "the delivery route answers 404" });
        else {
          log(`${r.name}: probe ${r.probe}; ${cfg.seconds} s`);
          one = await measureLaunched(r, [services[0]], deliveryReq(seeded.webhooks.launch, files));
          run.rows.push(r);
        }
      } else {
        run.rows.push({
          id: "6-1",
          name: "6.0 pull_request.opened, 1 process (baseline)",
          store: "postgresql",
          target: "max",
          skipped: `webhook create failed (${seeded.webhookError})`,
        });
      }
      await Promise.all(services.map((s) => s.child.stop(25_000)));
    }
    log("starting 2 service processes on PostgreSQL");
    const services = await startAll("pg", 2, url, sealKey, token);
    const seeded = await seed(services[0].base, token, `pg2-${newNonce()}`, run.notes);
    const rows = await serviceScenarios({ store: "postgresql", services, seeded, files, payload });
    const two = rows.find((r) => r.id === "61");
    if (two && !two.skipped && one) {
      const after = two.oneAfterPerS ?? one.launchedPerS;
      const baseline = (one.launchedPerS + after) / 2;
      two.met = two.met && launchedPerS(two) >= 1500 && launchedPerS(two) > baseline;
      two.note = `${launchedPerS(two).toFixed(0)} launched/s with 2 processes vs ${baseline.toFixed(0)} with 1 (the mean of ${one.launchedPerS.toFixed(0)} before and ${after.toFixed(0)} after)`;
    } else if (two && !two.skipped) {
      two.met = null;
      two.note = "no 1-process baseline to compare with";
    }
    run.rows.push(...rows);
    rssRow(rows, "postgresql, 2 processes");
    await Promise.all(services.map((s) => s.child.stop(25_000)));
  } else {
    run.notes.push("PostgreSQL scenarios (6) not run: set SERVICE_DATABASE_URL or pass --pg.");
  }
}

let failed = null;
try {
  await main();
} catch (err) {
  failed = err;
  process.stderr.write(`\nbenchmark failed: ${err?.stack ?? err}\n`);
  run.notes.push(`The run stopped early: ${err?.message ?? err}`);
} finally {
  await cleanupAll();
}
if (run.meta.date) {
  writeReports(BENCH, run);
  log(`wrote bench/RESULTS.md and bench/results.json; logs in bench/out/`);
  process.stdout.write(`\n${readFileSync(path.join(BENCH, "RESULTS.md"), "utf8")}`);
}
process.exit(failed ? 1 : 0);
