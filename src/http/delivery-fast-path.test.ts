import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../config/logger.js";
import { WRITER_STOPPED } from "../store/sqlite-writer.js";
import type { DeliveryIntake, DeliveryOutcome, DeliveryRequest } from "../intake/delivery-intake.js";
import { deliveryFastPath } from "./delivery-fast-path.js";

/** A server whose fallback (Fastify in the service) answers 299, so a test sees who answered. */
describe("delivery fast path", () => {
  const seen: DeliveryRequest[] = [];
  const logs: string[] = [];
  const filtered = async (): Promise<DeliveryOutcome> => ({ kind: "filtered", deliveryId: "dlv_1", reason: "author not allowed" });
  let outcome = filtered;
  let closing = false;
  let base = "";
  let server: http.Server;

  beforeAll(async () => {
    const intake = {
      deliver: async (req: DeliveryRequest) => {
        seen.push({ ...req, rawBody: Buffer.from(req.rawBody) });
        return outcome();
      },
    } as unknown as DeliveryIntake;
    const log = createLogger("debug", new Writable({ write: (chunk, _enc, done) => (logs.push(String(chunk)), done()) }));
    const fast = deliveryFastPath({ intake, log, address: (req) => req.socket.remoteAddress, closing: () => closing });
    server = http.createServer((req, res) => {
      if (fast(req, res)) return;
      res.writeHead(299, { connection: "close" });
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    seen.length = 0;
    closing = false;
    outcome = filtered;
  });

  const post = (path: string, body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
    fetch(base + path, { method: "POST", body, headers });

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
    expect(await broken.json()).toEqual({ error: "internal", detail: "internal error" });
    expect(logs.join("")).toContain("unhandled error");
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

  it("leaves to the framework what it does not take: other methods and paths, queries, escapes, long ids, chunked, oversized or untyped bodies, a closing server", async () => {
    const declined: [string, Promise<number>][] = [
      ["GET", fetch(base + "/api/webhooks/forge_b/whk_1").then((r) => r.status)],
      ["other path", post("/api/webhooks/forge_b/whk_1/x", "{}").then((r) => r.status)],
      ["query", post("/api/webhooks/forge_b/whk_1?x=1", "{}").then((r) => r.status)],
      ["escape", post("/api/webhooks/forge_b/whk%5F1", "{}").then((r) => r.status)],
      ["101-character id", post(`/api/webhooks/forge_b/${"w".repeat(101)}`, "{}").then((r) => r.status)],
      ["no content-type", rawRequest(base, "/api/webhooks/forge_b/whk_1", "{}", { "content-length": "2" })],
      ["chunked", rawRequest(base, "/api/webhooks/forge_b/whk_1", "{}", { "content-type": "application/json", "transfer-encoding": "chunked" })],
      ["oversized", rawRequest(base, "/api/webhooks/forge_b/whk_1", "", { "content-type": "application/json", "content-length": String(25 * 1024 * 1024 + 1) })],
    ];
    for (const [what, status] of declined) expect(await status, what).toBe(299);
    closing = true;
    expect((await post("/api/webhooks/forge_b/whk_1", "{}")).status, "closing").toBe(299);
    expect(seen).toHaveLength(0);
    closing = false;
    expect((await post(`/api/webhooks/forge_b/${"w".repeat(100)}`, "{}")).status, "100-character id").toBe(200);
  });
});

/** POST with exactly these headers (none added), answered by status; the body is written unless empty. */
function rawRequest(base: string, path: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(base + path, { method: "POST", headers, setHost: true });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    if (body) req.write(body);
    if (headers["content-length"] && !body) req.flushHeaders();
    else req.end();
  });
}
