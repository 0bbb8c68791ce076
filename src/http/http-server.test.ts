import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenancy, startTestApp, type TestApp } from "../test-support/harness.js";
import { rawExchange, rawPost } from "../test-support/raw-http.js";
import { MAX_PIPELINED } from "./http-server.js";

const until = async (what: () => boolean, ms: number) => {
  for (const end = Date.now() + ms; !what() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 25));
  return what();
};

/** The server's own limits, over real sockets (one store suffices: none of this reaches it). */
describe("HTTP server limits", () => {
  let t: TestApp;
  let port = 0;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;

  beforeAll(async () => {
    t = await startTestApp("sqlite", { SERVICE_HTTP_HEADERS_TIMEOUT: "1s", SERVICE_HTTP_REQUEST_TIMEOUT: "2s", SERVICE_HTTP_IDLE_TIMEOUT: "3s" });
    seed = await seedTenancy(t);
    port = Number(new URL(await t.app.listen({ port: 0, host: "127.0.0.1" })).port);
  });
  afterAll(() => t.close());

  it("closes a socket that sends nothing, and one that trickles its headers, once the headers timeout passes (408 in the one body shape)", async () => {
    const silent = net.connect(port, "127.0.0.1");
    let silentClosed = false;
    silent
      .on("close", () => (silentClosed = true))
      .on("error", () => {})
      .resume();
    const slow = net.connect(port, "127.0.0.1");
    let slowAnswer = "";
    let slowClosed = false;
    slow
      .on("data", (d) => (slowAnswer += d))
      .on("close", () => (slowClosed = true))
      .on("error", () => {});
    slow.write("GET /healthz HTTP/1.1\r\n");
    const drip = setInterval(() => slow.writable && slow.write("x-slow: 1\r\n"), 200);
    try {
      expect(await until(() => silentClosed && slowClosed, 4000)).toBe(true);
    } finally {
      clearInterval(drip);
    }
    expect(slowAnswer).toMatch(/^HTTP\/1.1 408 /);
    expect(JSON.parse(slowAnswer.slice(slowAnswer.indexOf("\r\n\r\n") + 4))).toEqual({
      error: "request_timeout",
      detail: "the request was not received in time",
    });
  });

  it("closes a request whose body stops arriving before the request timeout", async () => {
    const hook = (await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] })).body.config;
    const started = Date.now();
    const r = await rawExchange(
      port,
      `POST /api/webhooks/forge_b/${hook.id} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":`,
    );
    expect(Date.now() - started).toBeLessThan(4500);
    if (r !== "closed") expect(r.status).toBe(408);
    expect(await until(() => t.services.bodyBudget.inUse === 0, 1000)).toBe(true);
  });

  it(`closes a connection with more than ${MAX_PIPELINED} requests in flight, and serves the others`, async () => {
    const pipelined = Array(MAX_PIPELINED + 8)
      .fill("GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
      .join("");
    const socket = net.connect(port, "127.0.0.1");
    let answers = "";
    let closed = false;
    socket
      .on("data", (d) => (answers += d))
      .on("close", () => (closed = true))
      .on("error", () => {});
    socket.write(pipelined);
    expect(await until(() => closed, 3000)).toBe(true);
    expect(answers.split("HTTP/1.1 200").length - 1).toBeLessThanOrEqual(MAX_PIPELINED);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it("answers malformed requests, oversized headers and overlong path segments in the one error shape", async () => {
    const bad = await rawExchange(port, "NOT HTTP AT ALL\r\n\r\n");
    expect(bad !== "closed" && [bad.status, JSON.parse(bad.body)]).toEqual([400, { error: "invalid_request", detail: "the request is not valid HTTP" }]);
    const big = await rawExchange(port, `GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`);
    expect(big !== "closed" && [big.status, JSON.parse(big.body).error]).toEqual([431, "headers_too_large"]);
    const long = await fetch(`http://127.0.0.1:${port}/api/teams/${"t".repeat(101)}`, { headers: { authorization: `Bearer ${seed.member.token}` } });
    expect([long.status, (await long.json()) as unknown]).toEqual([
      414,
      { error: "uri_too_long", detail: "a path segment is longer than 100 characters", request_id: expect.any(String) },
    ]);
    const badEscape = await fetch(`http://127.0.0.1:${port}/api/teams/%E0%A4%A`, { headers: { authorization: `Bearer ${seed.member.token}` } });
    expect([badEscape.status, ((await badEscape.json()) as { error: string }).error]).toEqual([400, "invalid_request"]);
  });

  it("counts a management body abandoned mid-way as aborted, never as the store's outage", async () => {
    const socket = net.connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      `POST /api/teams/${seed.team.id}/webhooks HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${seed.teamAdmin.token}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n3\r\n{"a\r\n`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.resetAndDestroy();
    expect(await until(() => t.logs.some((l) => l.includes("request aborted by its caller")), 2000)).toBe(true);
    expect(await t.services.metrics.text()).toMatch(/service_http_aborted_total\{route="api"\} 1/);
    expect(t.logs.filter((l) => l.includes("store unavailable"))).toEqual([]);
    expect(t.services.bodyBudget.inUse).toBe(0);
    const ok = await rawPost(port, "/healthz", {}, []);
    expect(ok.status).toBe(404);
  });
});
