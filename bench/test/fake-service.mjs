// A stand-in for dist/main.js that speaks just the API the harness drives, with no store:
// it lets the harness itself be tested (node bench/run.mjs --service-main bench/test/fake-service.mjs)
// while the real routes are missing. Its numbers mean nothing.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";

const env = process.env;
const key = env.SERVICE_SEAL_KEY ?? "k";
const counts = { launched: 0, filtered: 0, duplicate: 0 };
const seen = new Set();
const id = (p) => `${p}_${randomBytes(8).toString("hex")}`;
// Tokens derive from the webhook id so that several processes agree without a shared store.
const tokenOf = (hookId) => `wh_${createHmac("sha256", key).update(hookId).digest("base64url")}`;

function send(res, status, body) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": typeof body === "string" ? "text/plain" : "application/json" });
  res.end(text);
}

function delivery(req, res, hookId, body) {
  const sig = String(req.headers["x-hub-signature-256"] ?? "");
  const want = Buffer.from(`sha256=${createHmac("sha256", tokenOf(hookId)).update(body).digest("hex")}`);
  const got = Buffer.from(sig);
  if (got.length !== want.length || !timingSafeEqual(got, want)) return send(res, 401, { error: "invalid webhook" });
  const event = JSON.parse(body.toString("utf8"));
  if (hookId.startsWith("whf")) {
    counts.filtered++;
    return send(res, 200, { status: "filtered" });
  }
  const k = `${hookId}:${event.repository.full_name}:${event.pull_request.number}:${event.pull_request.head.sha}`;
  if (seen.has(k)) {
    counts.duplicate++;
    return send(res, 200, { status: "duplicate" });
  }
  seen.add(k);
  counts.launched++;
  send(res, 201, { status: "launched" });
}

http
  .createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const url = req.url ?? "";
      if (url === "/readyz") return send(res, 200, { status: "ready" });
      if (url === "/metrics") {
        return send(
          res,
          200,
          `${Object.entries(counts)
            .map(([s, n]) => `service_webhook_deliveries_total{provider="forge_b",status="${s}"} ${n}`)
            .join("\n")}\n`,
        );
      }
      const hook = /^\/api\/webhooks\/forge_b\/([\w-]+)$/.exec(url);
      if (req.method === "POST" && hook) return delivery(req, res, hook[1], body);
      const auth = String(req.headers.authorization ?? "");
      if (!auth.startsWith("Bearer iap_")) return send(res, 401, { error: "unauthorized" });
      const json = body.length ? JSON.parse(body.toString("utf8")) : {};
      if (url === "/api/admin/orgs" || /^\/api\/orgs\/[\w-]+\/teams$/.test(url) || url === "/api/admin/users") {
        return send(res, 201, { id: id("x") });
      }
      if (/^\/api\/teams\/[\w-]+\/members\//.test(url)) return send(res, 200, { ok: true });
      if (/^\/api\/admin\/users\/[\w-]+\/tokens$/.test(url)) return send(res, 201, { token: `iap_${randomBytes(24).toString("base64url")}` });
      if (/^\/api\/teams\/[\w-]+\/webhooks$/.test(url)) {
        const hookId = id(json.author_allowlist?.length ? "whf" : "whl");
        return send(res, 201, { config: { id: hookId }, token: tokenOf(hookId) });
      }
      if (url === "/api/runs" && req.method === "POST") return send(res, 201, { id: id("run"), status: "queued" });
      send(res, 404, { error: "not_found" });
    });
  })
  .listen(Number(env.SERVICE_PORT), "127.0.0.1");
process.on("SIGTERM", () => process.exit(0));
