import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { rawPost } from "../test-support/raw-http.js";
import { Writable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../config/logger.js";
import { Metrics } from "../metrics/metrics.js";
import { WRITER_STOPPED } from "../store/sqlite/writer.js";
import type { DeliveryIntake } from "../intake/delivery-intake.js";
import type { DeliveryHead, DeliveryOpening, DeliveryOutcome, DeliveryRequest, OpenDelivery } from "../intake/delivery-outcome.js";
import { BodyBudget } from "./body-budget.js";
import { deliveryFastPath } from "./delivery-fast-path.js";
import { deliveryReceiver } from "./receive-delivery.js";

const LIMIT = 1024;

/**
 * The fast path and the receiver on a real server, over an intake that opens `whk_*` webhooks
 * (at most 1 KiB of body) and refuses every other id; the fallback (Fastify in the service)
 * answers 299, so a test sees who answered.
 */
describe("delivery fast path", () => {
  const seen: DeliveryRequest[] = [];
  const opened: DeliveryHead[] = [];
  const logs: string[] = [];
  const filtered = async (): Promise<DeliveryOutcome> => ({ kind: "filtered", deliveryId: "dlv_1", reason: "author not allowed" });
  let outcome = filtered;
  let closing = false;
  let base = "";
  let port = 0;
  let server: http.Server;
  const metrics = new Metrics({ processMetrics: false });
  const budget = new BodyBudget(4 * LIMIT);

  beforeAll(async () => {
    const intake = {
      open: async (head: DeliveryHead): Promise<DeliveryOpening> => {
        opened.push(head);
        if (!head.webhookId.startsWith("whk_")) return { kind: "refused", outcome: { kind: "unknown_webhook" } };
        return { kind: "open", provider: "forge_b", maxBodyBytes: LIMIT } as OpenDelivery;
      },
      receive: async (_opened: OpenDelivery, req: DeliveryRequest) => {
        seen.push({ ...req, rawBody: Buffer.from(req.rawBody) });
        return outcome();
      },
    } as unknown as DeliveryIntake;
    const log = createLogger(
      "debug",
      new Writable({
        write: (chunk, _enc, done) => {
          logs.push(String(chunk));
          done();
        },
      }),
    );
    const receive = deliveryReceiver({ intake, budget, metrics, log });
    const fast = deliveryFastPath({ receive, log, address: (req) => req.socket.remoteAddress, closing: () => closing, metrics });
    server = http.createServer((req, res) => {
      if (fast(req, res)) return;
      res.writeHead(299, { connection: "close" });
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    seen.length = 0;
    opened.length = 0;
    logs.length = 0;
    closing = false;
    outcome = filtered;
  });

  const post = (path: string, body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
    fetch(base + path, { method: "POST", body, headers });
  const counter = async (name: string) =>
    (await metrics.text())
      .split("\n")
      .filter((l) => l.startsWith(name))
      .join("\n");

  it("hands a plain delivery to the intake, bytes, headers and caller intact, and sends its answer", async () => {
    const body = JSON.stringify({ hello: "wörld" });
    const res = await post("/api/webhooks/forge_b/whk_1-a", body, { "content-type": "application/json", "x-github-event": "pull_request" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.json()).toEqual({ status: "filtered", delivery_id: "dlv_1", reason: "author not allowed" });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ provider: "forge_b", webhookId: "whk_1-a", sourceIp: "127.0.0.1" });
    expect(seen[0]!.headers["x-github-event"]).toBe("pull_request");
    expect(Buffer.from(seen[0]!.rawBody).toString("utf8")).toBe(body);
    expect(budget.inUse).toBe(0);
  });

  it("answers with the request's id (the caller's when plain, else a new UUID), names it in error bodies, and logs one access line and one duration per delivery", async () => {
    const kept = await post("/api/webhooks/forge_b/whk_1", "{}", { "content-type": "application/json", "x-request-id": "forge-7f3a.1" });
    expect(kept.headers.get("x-request-id")).toBe("forge-7f3a.1");
    expect(await kept.json()).not.toHaveProperty("request_id");
    const made = await post("/api/webhooks/forge_b/whk_1", "{}", { "content-type": "application/json", "x-request-id": "two words; <script>" });
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const refused = await post("/api/webhooks/forge_b/nothook", "{}", { "content-type": "application/json", "x-request-id": "r-1" });
    expect([refused.status, await refused.json()]).toEqual([401, { error: "invalid_webhook", detail: "invalid webhook", request_id: "r-1" }]);

    const lines = logs.map((l) => JSON.parse(l)).filter((l) => l.msg === "request");
    expect(lines.map((l) => [l.request_id, l.method, l.route, l.status])).toEqual([
      ["forge-7f3a.1", "POST", "/api/webhooks/:provider/:id", 200],
      [made.headers.get("x-request-id"), "POST", "/api/webhooks/:provider/:id", 200],
      ["r-1", "POST", "/api/webhooks/:provider/:id", 401],
    ]);
    expect(lines.every((l) => typeof l.duration_ms === "number" && l.level === 30 && !("headers" in l) && !("body" in l))).toBe(true);
    expect(await counter('service_http_request_duration_seconds_count{route="/api/webhooks/:provider/:id",method="POST",status_class="4xx"}')).toMatch(/ 1$/);
  });

  it("sends Retry-After with a refusal, and the store's absence as a 503 a forge retries", async () => {
    outcome = async () => ({ kind: "rate_limited", deliveryId: "dlv_2", retryAfterSeconds: 7 });
    const limited = await post("/api/webhooks/forge_b/whk_1", "{}");
    expect([limited.status, limited.headers.get("retry-after")]).toEqual([429, "7"]);
    expect(await limited.json()).toMatchObject({ error: "rate_limited" });

    outcome = async () => {
      throw Object.assign(new Error("the writer thread stopped"), { code: WRITER_STOPPED });
    };
    const down = await post("/api/webhooks/forge_b/whk_1", "{}");
    expect([down.status, down.headers.get("retry-after")]).toEqual([503, "1"]);
    expect(await down.json()).toMatchObject({ error: "store_unavailable" });

    outcome = async () => {
      throw new Error("a bug");
    };
    const broken = await post("/api/webhooks/forge_b/whk_1", "{}");
    expect(broken.status).toBe(500);
    expect(await broken.json()).toEqual({ error: "internal", detail: "internal error", request_id: broken.headers.get("x-request-id") });
    expect(logs.join("")).toContain("unhandled error");
    expect(budget.inUse).toBe(0);
  });

  it("asks the caller to close the connection when it answers while the server stops", async () => {
    const open = await post("/api/webhooks/forge_b/whk_1", "{}");
    expect(open.headers.get("connection")).not.toBe("close");
    outcome = async () => {
      closing = true;
      return filtered();
    };
    const stopping = await post("/api/webhooks/forge_b/whk_1", "{}");
    expect([stopping.status, stopping.headers.get("connection")]).toEqual([200, "close"]);
  });

  it("takes queries, chunked and untyped bodies; leaves other methods and paths, escapes, long ids and a closing server to the framework", async () => {
    expect((await post("/api/webhooks/forge_b/whk_1?x=1", "{}")).status, "query").toBe(200);
    expect((await rawPost(port, "/api/webhooks/forge_b/whk_1", { "content-length": "2" }, ["{}"])).status, "no content-type").toBe(200);
    const chunked = await rawPost(port, "/api/webhooks/forge_b/whk_1", { "content-type": "application/json", "transfer-encoding": "chunked" }, ["{", "}"]);
    expect(chunked.status, "chunked").toBe(200);
    expect(seen.map((s) => s.rawBody.toString())).toEqual(["{}", "{}", "{}"]);

    seen.length = 0;
    const declined: [string, Promise<number>][] = [
      ["GET", fetch(`${base}/api/webhooks/forge_b/whk_1`).then((r) => r.status)],
      ["other path", post("/api/webhooks/forge_b/whk_1/x", "{}").then((r) => r.status)],
      ["escape", post("/api/webhooks/forge_b/whk%5F1", "{}").then((r) => r.status)],
      ["101-character id", post(`/api/webhooks/forge_b/${"w".repeat(101)}`, "{}").then((r) => r.status)],
    ];
    for (const [what, status] of declined) expect(await status, what).toBe(299);
    closing = true;
    expect((await post("/api/webhooks/forge_b/whk_1", "{}")).status, "closing").toBe(299);
    expect(seen).toHaveLength(0);
    closing = false;
    expect((await post(`/api/webhooks/forge_b/whk_${"w".repeat(96)}`, "{}")).status, "100-character id").toBe(200);
  });

  it("refuses a delivery the headers refuse before reading its body, and closes the connection", async () => {
    // 10 MB announced, 5 bytes sent: the answer comes without the rest.
    const res = await rawPost(port, "/api/webhooks/forge_b/unknown", { "content-type": "application/json", "content-length": String(10_000_000) }, ['{"a":'], {
      end: false,
    });
    expect(res.status).toBe(401);
    expect(res.headers.connection).toBe("close");
    expect(JSON.parse(res.body)).toMatchObject({ error: "invalid_webhook", detail: "invalid webhook" });
    expect(seen).toHaveLength(0);
    expect(opened).toHaveLength(1);
    // A small body is discarded as it comes, and the connection kept for the next delivery.
    const small = await post("/api/webhooks/forge_b/unknown", "{}");
    expect([small.status, small.headers.get("connection")]).toEqual([401, "keep-alive"]);
  });

  it("refuses a declared length over the provider's limit at the header (413), and a chunked body at the chunk that passes it", async () => {
    const declared = await rawPost(port, "/api/webhooks/forge_b/whk_1", { "content-type": "application/json", "content-length": String(LIMIT + 1) }, [], {
      end: false,
    });
    expect([declared.status, declared.headers.connection]).toEqual([413, "close"]);
    expect(JSON.parse(declared.body)).toMatchObject({ error: "payload_too_large", detail: `a forge_b delivery carries at most ${LIMIT} bytes` });

    // One byte past the limit, and the connection kept open: the answer does not wait for the end.
    const chunked = await rawPost(
      port,
      "/api/webhooks/forge_b/whk_1",
      { "content-type": "application/json", "transfer-encoding": "chunked" },
      ["x".repeat(LIMIT), "y"],
      { end: false },
    );
    expect([chunked.status, chunked.headers.connection]).toEqual([413, "close"]);
    expect(seen).toHaveLength(0);
    expect(budget.inUse).toBe(0);
    expect(await counter("service_http_bodies_refused_total")).toContain('reason="too_large"} 2');
  });

  it("answers 503 with Retry-After while the process holds its whole body budget, and reads bodies again once it is given back", async () => {
    expect(budget.take(budget.capacity - 10)).toBe(true);
    try {
      const busy = await rawPost(port, "/api/webhooks/forge_b/whk_1", { "content-type": "application/json", "content-length": "11" }, ['{"a":"bcd"}']);
      expect([busy.status, busy.headers["retry-after"], busy.headers.connection]).toEqual([503, "1", "close"]);
      expect(JSON.parse(busy.body)).toMatchObject({ error: "server_busy" });
      const chunked = await rawPost(port, "/api/webhooks/forge_b/whk_1", { "content-type": "application/json", "transfer-encoding": "chunked" }, [
        "x".repeat(6),
        "y".repeat(6),
      ]);
      expect(chunked.status).toBe(503);
      expect(budget.inUse).toBe(budget.capacity - 10);
    } finally {
      budget.give(budget.capacity - 10);
    }
    expect((await post("/api/webhooks/forge_b/whk_1", '{"a":"bcd"}')).status).toBe(200);
    expect(await counter("service_http_bodies_refused_total")).toContain('reason="busy"} 2');
  });

  it("counts a caller that goes away mid-body as aborted, logs it at debug and never as the store's", async () => {
    const socket = net.connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write('POST /api/webhooks/forge_b/whk_1 HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n3\r\n{"a\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.resetAndDestroy();
    for (let i = 0; i < 50 && !(await counter("service_http_aborted_total")).includes("} 1"); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await counter("service_http_aborted_total")).toContain('route="delivery"} 1');
    expect(seen).toHaveLength(0);
    expect(budget.inUse).toBe(0);
    const lines = logs.map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    expect(lines.some((l) => l.level === 20 && l.msg === "delivery aborted by its caller")).toBe(true);
  });
});
