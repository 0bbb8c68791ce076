// The delivery path's cost per request without HTTP: the real services (dist/) on a file-backed
// SQLite store, fed GitHub's pull_request.opened payload, 32 deliveries in flight.
//   npm run build && node bench/delivery-cost.mjs [launched|filtered|duplicate] [--requests N] [--statements] [--receiver] [--keep] [--traced]
// --statements times every SQLite statement (µs per execution), the way the costs in
// ANALYSIS.md were found. Profile with: node --cpu-prof bench/delivery-cost.mjs launched
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { splitPayload, sign } from "./lib/payload.mjs";

const { values: opt, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    requests: { type: "string", default: "20000" },
    statements: { type: "boolean", default: false },
    // Deliveries go through the endpoint's receiver (body read, answer built), as HTTP requests do.
    receiver: { type: "boolean", default: false },
    // The webhook keeps each delivery's request (keep_payloads), to measure what keeping costs; implies --receiver.
    keep: { type: "boolean", default: false },
    // OpenTelemetry traces on, sent to a stand-in collector in this process (what tracing costs when on).
    traced: { type: "boolean", default: false },
  },
});
const scenario = positionals[0] ?? "launched";
if (!["launched", "filtered", "duplicate"].includes(scenario)) throw new Error(`unknown scenario ${scenario}`);
const total = Number(opt.requests);
const warmup = Math.min(2000, Math.floor(total / 10));

const statementTimes = new Map();
if (opt.statements) {
  const proto = Object.getPrototypeOf(new Database(":memory:").prepare("select 1"));
  for (const method of ["run", "all", "get"]) {
    const original = proto[method];
    proto[method] = function timed(...args) {
      const t0 = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        const key = this.source.replace(/\s+/g, " ").slice(0, 100);
        const entry = statementTimes.get(key) ?? { n: 0, ns: 0 };
        entry.n++;
        entry.ns += Number(process.hrtime.bigint() - t0);
        statementTimes.set(key, entry);
      }
    };
  }
}

const dist = (m) => import(new URL(`../dist/${m}`, import.meta.url).href);
if (opt.traced) {
  const { createServer } = await import("node:http");
  const sink = createServer((req, res) => req.resume().on("end", () => res.writeHead(200).end("{}")));
  await new Promise((resolve) => sink.listen(0, "127.0.0.1", resolve));
  sink.unref();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${sink.address().port}`;
  const { startTracing } = await dist("core/tracing.js");
  console.log("tracing:", JSON.stringify(await startTracing({ name: "bench", version: "0" })));
}
const [
  { loadConfig },
  { createLogger },
  { composeServices },
  { systemClock },
  { randomIds },
  { Sealer },
  { buildApp },
  { Metrics },
  { openStore },
  { bootstrapAdmin },
] = await Promise.all(
  [
    "config/config.js",
    "config/logger.js",
    "compose.js",
    "core/clock.js",
    "core/ids.js",
    "core/sealer.js",
    "http/app.js",
    "metrics/metrics.js",
    "store/store.js",
    "tenancy/bootstrap.js",
  ].map(dist),
);

const dir = mkdtempSync(path.join(os.tmpdir(), "delivery-cost-"));
const store = await openStore({ databaseUrl: "", sqlitePath: path.join(dir, "service.sqlite") });
const token = `iap_${randomBytes(32).toString("base64url")}`;
const config = loadConfig({ ...process.env, SERVICE_ADMIN_TOKEN: token, SERVICE_RUNNER: "none" });
const log = createLogger("warn");
const services = composeServices({
  config,
  store,
  clock: systemClock,
  ids: randomIds,
  metrics: new Metrics(),
  sealer: new Sealer("k", { k: randomBytes(32) }),
  log,
});
await bootstrapAdmin({ store, clock: systemClock, ids: randomIds, tokens: services.tokens }, token);
const app = await buildApp(services, { logger: log });
await app.ready();
const post = async (url, body) => {
  const res = await app.inject({ method: "POST", url, headers: { authorization: `Bearer ${token}` }, payload: body });
  if (res.statusCode >= 300) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return JSON.parse(res.body);
};
const org = await post("/api/admin/orgs", { name: "cost", monthly_webhook_calls: 1_000_000_000 });
const team = await post(`/api/orgs/${org.id}/teams`, { name: "cost" });
const hook = await post(`/api/teams/${team.id}/webhooks`, {
  provider: "forge_b",
  name: "cost",
  rate: 10_000,
  burst: 1_000_000,
  bot_ids: ["review-pr"],
  ...(scenario === "filtered" ? { author_allowlist: ["someone-else"] } : {}),
  ...(opt.keep ? { keep_payloads: true } : {}),
});

const payload = splitPayload();
const replay = { sha: randomBytes(20).toString("hex"), id: randomUUID() };
const delivery = () => {
  const body = payload.body(scenario === "duplicate" ? replay.sha : randomBytes(20).toString("hex"));
  return {
    provider: "forge_b",
    webhookId: hook.config.id,
    sourceIp: "127.0.0.1",
    rawBody: body,
    headers: {
      "content-type": "application/json",
      "x-github-event": "pull_request",
      "x-github-delivery": scenario === "duplicate" ? replay.id : randomUUID(),
      "x-hub-signature-256": sign(hook.token, body),
    },
  };
};
const requests = Array.from({ length: total }, delivery);
const outcomes = {};
async function drive(list) {
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < list.length) {
        const req = list[next++];
        if (opt.receiver || opt.keep) {
          const headers = { ...req.headers, "content-length": String(req.rawBody.length) };
          const a = await services.receiveDelivery({ ...req, headers, body: Readable.from([req.rawBody]) });
          const kind = a?.body?.status ?? a?.body?.error ?? "none";
          outcomes[kind] = (outcomes[kind] ?? 0) + 1;
          continue;
        }
        const o = await services.intake.deliver(req);
        const kind = o.kind === "launch" ? o.results[0].kind : o.kind;
        outcomes[kind] = (outcomes[kind] ?? 0) + 1;
      }
    }),
  );
}

await drive(requests.slice(0, warmup));
statementTimes.clear();
const cpu0 = process.cpuUsage();
const loop0 = performance.eventLoopUtilization();
const t0 = performance.now();
await drive(requests.slice(warmup));
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const loop = performance.eventLoopUtilization(loop0);
const measured = total - warmup;
console.log(
  `${scenario}: ${measured} deliveries, ${Math.round((measured / ms) * 1000)}/s, ` +
    `${((cpu.user + cpu.system) / measured).toFixed(0)} µs CPU each (all threads), ` +
    `${((loop.active * 1000) / measured).toFixed(0)} µs on the event loop; outcomes ${JSON.stringify(outcomes)}`,
);
if (opt.statements) {
  const rows = [...statementTimes].sort((a, b) => b[1].ns - a[1].ns);
  const sum = rows.reduce((s, [, e]) => s + e.ns, 0);
  console.log(`SQLite: ${(sum / 1000 / measured).toFixed(0)} µs per delivery`);
  for (const [sql, e] of rows) console.log(`${(e.ns / e.n / 1000).toFixed(1).padStart(7)} µs × ${String(e.n).padStart(6)}  ${sql}`);
}
await app.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
