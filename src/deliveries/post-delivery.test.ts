import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../test-support/harness.js";
import { postDelivery } from "./post-delivery.js";

describe("postDelivery over the network", () => {
  let server: Server;
  let url = "";
  let answer: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void = () => {};
  const seen: { method?: string; headers: IncomingMessage["headers"]; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        seen.push({ method: req.method, headers: req.headers, body: body.toString() });
        answer(req, res, body);
      });
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/webhooks/forge_b/whk_1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  });

  it("POSTs the body and headers once and reads a JSON answer", async () => {
    answer = (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"status":"filtered","delivery_id":"dlv_1"}');
    const body = Buffer.from('{"zen":"ping"}');
    const posted = await postDelivery(url, { "content-type": "application/json", "x-github-event": "ping" }, body, 5_000);
    expect(posted).toEqual({ kind: "answered", status: 200, location: null, json: { status: "filtered", delivery_id: "dlv_1" }, text: null });
    expect(seen.at(-1)).toMatchObject({ method: "POST", headers: { "x-github-event": "ping" }, body: '{"zen":"ping"}' });
  });

  it("keeps the start of an answer that is not JSON, and does not follow a redirect", async () => {
    answer = (_req, res) => res.writeHead(502, { "content-type": "text/html" }).end(`<html>${"x".repeat(1000)}</html>`);
    const page = await postDelivery(url, {}, Buffer.from("{}"), 5_000);
    expect(page).toMatchObject({ kind: "answered", status: 502, json: null });
    expect(page.kind === "answered" && page.text).toBe(`<html>${"x".repeat(294)}`);
    const before = seen.length;
    answer = (_req, res) => res.writeHead(301, { location: `${url}/elsewhere` }).end();
    expect(await postDelivery(url, {}, Buffer.from("{}"), 5_000)).toMatchObject({ kind: "answered", status: 301, location: `${url}/elsewhere` });
    expect(seen.length).toBe(before + 1);
  });

  it("gives up on a server that never answers, as a timeout", async () => {
    answer = () => {};
    expect(await postDelivery(url, {}, Buffer.from("{}"), 300)).toEqual({ kind: "unreachable", cause: "timeout", message: "no answer within 0.3 s" });
  });

  it("names a closed port as refused", async () => {
    const posted = await postDelivery(`http://127.0.0.1:${await freePort()}/x`, {}, Buffer.from("{}"), 5_000);
    expect(posted).toMatchObject({ kind: "unreachable", cause: "refused", message: expect.stringContaining("ECONNREFUSED") });
  });
});
