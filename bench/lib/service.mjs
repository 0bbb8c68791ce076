// The real service under test (node dist/main.js), its seeding over the management API, and
// probes that send one request from Node to prove a scenario takes the path it claims to.
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { sign } from "./payload.mjs";
import { freePort, start, waitReady } from "./procs.mjs";

export function adminToken() {
  return `iap_bench_${randomBytes(24).toString("base64url")}`;
}

/** Starts one service process on a free port; resolves when /readyz answers 200. */
/** The node flags `npm start` passes, read from package.json, so the bench measures the service as shipped. */
function startFlags(root) {
  const start = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts.start;
  return [...start.matchAll(/\s(--[a-z-]+=\S+)/g)].map((m) => m[1]);
}

/** `env`: more SERVICE_* settings for this process. */
export async function startService({
  root,
  workDir,
  name,
  adminToken,
  sealKey,
  databaseUrl,
  main = path.join(root, "dist/main.js"),
  nodeArgs = [],
  env: extra = {},
}) {
  if (!existsSync(main)) throw new Error(`${main} is missing: run npm run build`);
  const port = await freePort();
  const dataDir = path.join(workDir, `${name}-data`);
  mkdirSync(dataDir, { recursive: true });
  const env = {
    SERVICE_HOST: "127.0.0.1",
    SERVICE_PORT: String(port),
    SERVICE_DATA_DIR: dataDir,
    SERVICE_ADMIN_TOKEN: adminToken,
    // Every process of a shared store must open the same sealed webhook secrets.
    SERVICE_SEAL_KEY: sealKey,
    SERVICE_RUNNER: "none",
    // Scenario 5 measures the launch gate, not the API's per-credential rate limit (1200/min).
    SERVICE_API_RATE_LIMIT: "0",
    SERVICE_LOG_LEVEL: "warn",
    SERVICE_DATABASE_URL: databaseUrl ?? "",
    NODE_ENV: "production",
    ...extra,
  };
  const logFile = path.join(workDir, `${name}.log`);
  const child = start(process.execPath, [...startFlags(root), ...nodeArgs, main], { env, cwd: root, logFile });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitReady(`${base}/readyz`, child, 90_000);
  } catch (err) {
    throw new Error(`${name}: ${err.message} (log: ${logFile})`);
  }
  return { name, child, pid: child.pid, port, base, logFile };
}

export async function call(base, method, urlPath, { token, body, headers = {} } = {}) {
  const h = { ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  let payload = body;
  if (body !== undefined && !Buffer.isBuffer(body) && typeof body !== "string") {
    payload = JSON.stringify(body);
    h["content-type"] ??= "application/json";
  }
  const res = await fetch(`${base}${urlPath}`, { method, headers: h, body: payload, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, json, text };
}

async function must(base, method, urlPath, opts, want = [200, 201]) {
  const r = await call(base, method, urlPath, opts);
  if (!want.includes(r.status)) {
    const err = new Error(`${method} ${urlPath.replace(/\/[a-z]+_[\w-]+/g, "/…")} → ${r.status} ${r.text.slice(0, 160)}`);
    err.status = r.status;
    throw err;
  }
  return r.json;
}

/**
 * Org (no run quota, 10^9 monthly webhook calls), team (no concurrency cap), a team member
 * with a personal token (super-admins bypass the launch gate, so runs are launched as a
 * member), and when the webhook routes exist: a launch webhook and a filtering one.
 */
export async function seed(base, token, tag, notes) {
  const org = await must(base, "POST", "/api/admin/orgs", { token, body: { name: `bench-${tag}`, monthly_webhook_calls: 1_000_000_000 } });
  const team = await must(base, "POST", `/api/orgs/${org.id}/teams`, { token, body: { name: `bench-${tag}` } });
  const out = { orgId: org.id, teamId: team.id, runToken: token, runTokenKind: "super-admin", webhooks: {} };

  try {
    const user = await must(base, "POST", "/api/admin/users", { token, body: { login: `bench-${tag}` } });
    await must(base, "PUT", `/api/teams/${team.id}/members/${user.id}`, { token, body: { role: "member" } });
    const minted = await must(base, "POST", `/api/admin/users/${user.id}/tokens`, { token, body: { name: "bench" } });
    out.runToken = minted.token;
    out.runTokenKind = "team member";
  } catch (err) {
    notes.push(`runs are launched with the super-admin token (which bypasses the launch gate): member setup failed: ${err.message}`);
  }

  // The bucket must never throttle the benchmark: the API caps rate at 10,000/s and burst at
  // 10^6, which covers every scenario of a run (a few hundred thousand requests at most).
  const hook = (name, extra) => ({ provider: "forge_b", name, rate: 10_000, burst: 1_000_000, bot_ids: ["review-pr"], ...extra });
  for (const [key, extra] of [
    ["launch", {}],
    ["filtered", { author_allowlist: ["someone-else"] }],
  ]) {
    try {
      const created = await must(base, "POST", `/api/teams/${team.id}/webhooks`, { token, body: hook(`bench-${key}`, extra) }, [201]);
      out.webhooks[key] = { id: created.config.id, token: created.token, path: `/api/webhooks/forge_b/${created.config.id}` };
    } catch (err) {
      out.webhookError = err.message;
      break;
    }
  }
  return out;
}

export const deliveryHeaders = ["content-type: application/json", "X-GitHub-Event: pull_request"];

/** Sends one signed delivery from Node; returns {status, outcome, json}. */
export async function probeDelivery(base, hook, payload, sha, delivery = randomUUID()) {
  const body = payload.body(sha);
  const r = await call(base, "POST", hook.path, {
    body,
    headers: {
      "content-type": "application/json",
      "x-github-event": "pull_request",
      "x-github-delivery": delivery,
      "x-hub-signature-256": sign(hook.token, body),
    },
  });
  return { status: r.status, outcome: r.json?.status ?? r.json?.error ?? r.text.slice(0, 120), json: r.json };
}

/** Deliveries per status from /metrics (service_webhook_deliveries_total{provider="forge_b"}). */
export async function deliveryCounts(base) {
  const counts = {};
  try {
    const r = await call(base, "GET", "/metrics");
    for (const m of r.text.matchAll(/^service_webhook_deliveries_total\{([^}]*)\}\s+([0-9.e+]+)$/gm)) {
      if (!/provider="forge_b"/.test(m[1])) continue;
      const status = /status="([^"]+)"/.exec(m[1])?.[1] ?? "?";
      counts[status] = (counts[status] ?? 0) + Number(m[2]);
    }
  } catch {}
  return counts;
}

export async function deliveryCountsAll(services) {
  const total = {};
  for (const s of services) {
    for (const [k, v] of Object.entries(await deliveryCounts(s.base))) total[k] = (total[k] ?? 0) + v;
  }
  return total;
}

export function diffCounts(after, before) {
  const d = {};
  for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0) > 0) d[k] = v - (before[k] ?? 0);
  return d;
}
