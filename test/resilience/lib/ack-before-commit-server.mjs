// Negative control for the kill -9 test: a deliberately WRONG webhook receiver that answers
// 200 "launched" at once and writes the delivery and run rows to SQLite afterwards, in a batch
// every 200 ms. Killing it with SIGKILL loses the acknowledged-but-unwritten rows; the kill -9
// harness must see those losses, which proves it would see them in the real service too.
// Same surface as the service for the harness: SERVICE_PORT, SERVICE_DATA_DIR, GET /readyz,
// POST /api/webhooks/generic/:id, and <data dir>/service.db with webhook_deliveries and runs.
import { randomUUID } from "node:crypto";
import http from "node:http";
import path from "node:path";
import Database from "better-sqlite3";

const port = Number(process.env.SERVICE_PORT ?? 8080);
const db = new Database(path.join(process.env.SERVICE_DATA_DIR ?? ".", "service.db"));
db.pragma("journal_mode = WAL");
db.exec(`create table if not exists webhook_deliveries (id text primary key, status text not null, run_id text, idempotency_key text unique);
         create table if not exists runs (id text primary key)`);
const insertDelivery = db.prepare("insert or ignore into webhook_deliveries (id, status, run_id, idempotency_key) values (?, 'launched', ?, ?)");
const insertRun = db.prepare("insert or ignore into runs (id) values (?)");
let pending = [];
const flush = db.transaction((rows) => {
  for (const r of rows) {
    insertRun.run(r.runId);
    insertDelivery.run(r.deliveryId, r.runId, r.key);
  }
});
setInterval(() => {
  const rows = pending;
  pending = [];
  if (rows.length) flush(rows);
}, 200);

http
  .createServer((req, res) => {
    if (req.method === "GET" && (req.url === "/readyz" || req.url === "/healthz")) {
      res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
      return;
    }
    if (req.method === "POST" && req.url?.startsWith("/api/webhooks/generic/")) {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        let key = randomUUID();
        try {
          key = JSON.parse(Buffer.concat(chunks).toString("utf8")).idempotency_key ?? key;
        } catch {
          // keep the random key
        }
        const row = { deliveryId: `dlv_${randomUUID()}`, runId: `run_${randomUUID()}`, key };
        // The bug under test: acknowledge first, commit later.
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ status: "launched", run_id: row.runId, delivery_id: row.deliveryId, bot: "review-pr" }));
        pending.push(row);
      });
      return;
    }
    res.writeHead(404).end();
  })
  .listen(port, "127.0.0.1");
