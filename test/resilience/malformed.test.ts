import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepAlive, request } from "./lib/http.js";
import { generate, type Generated, type Hooks } from "./lib/malformed.js";
import { cleanupAll, errorLines, sleep, startService, type Service } from "./lib/proc.js";
import { admin, createHook, createOrg, createTeam } from "./lib/seed.js";

const SEED = Number(process.env.RESILIENCE_SEED ?? 20240901);
const TOTAL = Number(process.env.RESILIENCE_MALFORMED_TOTAL ?? 10_000);
const CONCURRENCY = 16;
const RSS_LIMIT = 300 * 1024 * 1024;
const MB = 1024 * 1024;

afterAll(cleanupAll);

/** Sends raw bytes, half-closes, and reads the status line of the first answer (0 = none). */
function raw(port: number, bytes: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const sock = net.connect(port, "127.0.0.1");
    let data = "";
    const done = (status: number) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(status);
    };
    const timer = setTimeout(() => done(-1), 5000);
    sock.on("connect", () => sock.end(bytes));
    sock.on("data", (c) => {
      data += c.toString("latin1");
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      if (m) done(Number(m[1]));
    });
    sock.on("error", () => done(0));
    sock.on("close", () => done(0));
  });
}

/**
 * Streams `size` bytes of body (with Content-Length, or chunked) over a raw socket and reads an
 * answer however early it comes: the service may answer 413 before the body ends and close.
 * Status 0: the connection ended with no answer read.
 */
function postOverLimit(port: number, path: string, headers: Record<string, string>, size: number, chunked: boolean): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const sock = net.connect(port, "127.0.0.1");
    let data = "";
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      resolve({ status: m ? Number(m[1]) : 0, text: data.slice(data.indexOf("\r\n\r\n") + 4) });
    };
    const timer = setTimeout(done, 60_000);
    const head = [
      `POST ${path} HTTP/1.1`,
      "Host: 127.0.0.1",
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${size}`,
    ];
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const write = async () => {
      sock.write(`${head.join("\r\n")}\r\n\r\n`);
      // A moment for an answer to the headers alone, which a body already in flight could cut off (a reset).
      await sleep(100);
      for (let sent = 0; sent < size && !settled && !/\r\n\r\n/.test(data); sent += chunk.length) {
        const ok = sock.write(chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]) : chunk);
        if (!ok) await drainOrClose(sock);
      }
      if (chunked && !settled) sock.write("0\r\n\r\n");
    };
    sock.on("connect", () => void write());
    sock.on("data", (c) => {
      data += c.toString("latin1");
      // The whole answer: headers and a Content-Length body.
      const end = data.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: *(\d+)/i.exec(data.slice(0, end));
      if (end >= 0 && length && data.length - end - 4 >= Number(length[1])) done();
    });
    sock.on("error", done);
    sock.on("close", done);
  });
}

const drainOrClose = (sock: net.Socket) =>
  new Promise<void>((resolve) => {
    const go = () => {
      sock.off("drain", go).off("close", go);
      resolve();
    };
    sock.on("drain", go).on("close", go);
  });

describe("malformed input: 10,000 generated requests against one live service (SQLite)", () => {
  let svc: Service;
  let hooks: Hooks;
  beforeAll(async () => {
    svc = await startService();
    const a = admin(svc.base);
    const org = await createOrg(a, { monthly_webhook_calls: 100_000_000 });
    const team = await createTeam(a, org);
    const open = { rate: 10_000, burst: 100_000, bot_ids: ["review-pr", "converse", "improve"] };
    hooks = {
      forgeB: await createHook(a, team, { provider: "forge_b", ...open }),
      forgeA: await createHook(a, team, { provider: "forge_a", ...open }),
      forgeC: await createHook(a, team, { provider: "forge_c", ...open }),
      generic: await createHook(a, team, { provider: "generic", ...open }),
      genericHmac: await createHook(a, team, { provider: "generic", sign_mode: "hmac", ...open }),
    };
  });
  afterAll(() => svc?.stop());

  it("answers no 5xx, never crashes, and keeps memory bounded", async () => {
    const agent = keepAlive(CONCURRENCY);
    const byCategory: Record<string, Record<string, number>> = {};
    const fivexx: { i: number; category: string; status: number; text: string }[] = [];
    const launchedUnproven: typeof fivexx = [];
    let connectionErrors = 0;
    let next = 0;
    const rss: { at: number; done: number; bytes: number }[] = [];
    const rssAt = (fraction: number) => rss.find((s) => s.done >= TOTAL * fraction)?.bytes ?? 0;
    let finished = false;
    const sampler = (async () => {
      while (!finished) {
        rss.push({ at: Date.now(), done: next, bytes: svc.rssBytes() });
        await sleep(200);
      }
    })();
    const rssStart = svc.rssBytes();
    const t0 = Date.now();
    const deadline = t0 + 240_000;

    const one = async (g: Generated, i: number) => {
      let status: number;
      let text = "";
      if (g.kind === "raw") status = await raw(svc.port, g.bytes);
      else {
        try {
          const r = await request(svc.base + g.path, { method: g.method, headers: g.headers, ...(g.body ? { body: g.body } : {}), agent, timeoutMs: 20_000 });
          status = r.status;
          text = r.text;
        } catch (err) {
          // The server may answer a huge or broken body early and close: a client-side failure, counted apart.
          connectionErrors++;
          status = 0;
          text = String(err);
        }
      }
      const key = status === 0 ? "conn" : status === -1 ? "no-answer" : String(status);
      byCategory[g.category] ??= {};
      const cat = byCategory[g.category]!;
      cat[key] = (cat[key] ?? 0) + 1;
      // A bad signature or token may be answered 401, or 200 "invalid" for a body with nothing to verify, but never launch.
      if (g.category === "bad-signature" && /"status":"(launched|duplicate)"/.test(text))
        launchedUnproven.push({ i, category: g.category, status, text: text.slice(0, 300) });
      if (status >= 500) fivexx.push({ i, category: g.category, status, text: text.slice(0, 300) });
    };
    const worker = async () => {
      while (next < TOTAL && Date.now() < deadline) {
        const i = next++;
        await one(generate(SEED, i, hooks), i);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const sent = next;
    agent.destroy();
    // Past the 25 MiB intake limit, declared or chunked: every answer read is a 413 (the service may also close before one is read).
    const overLimit: { chunked: boolean; status: number; text: string }[] = [];
    for (const chunked of [false, true, false, true]) {
      const headers = { "content-type": "application/json", "x-github-event": "pull_request" };
      overLimit.push({ chunked, ...(await postOverLimit(svc.port, `/api/webhooks/forge_b/${hooks.forgeB.id}`, headers, 26 * MB, chunked)) });
    }
    await sleep(1000);
    finished = true;
    await sampler;
    const rssEnd = svc.rssBytes();
    const rssPeak = Math.max(...rss.map((s) => s.bytes), rssEnd);
    const health = svc.alive()
      ? await request(`${svc.base}/healthz`, { timeoutMs: 5000 }).then(
          (r) => r.status,
          () => 0,
        )
      : 0;

    console.log(
      `malformed input: sent ${sent} in ${((Date.now() - t0) / 1000).toFixed(1)} s (seed ${SEED}), 5xx ${fivexx.length}, ` +
        `launched without proof ${launchedUnproven.length}, crashes ${svc.alive() ? 0 : 1}, /healthz ${health}, client-side connection failures ${connectionErrors}, ` +
        `RSS start ${(rssStart / MB).toFixed(0)} MB, at 50% ${(rssAt(0.5) / MB).toFixed(0)} MB, peak ${(rssPeak / MB).toFixed(0)} MB, end ${(rssEnd / MB).toFixed(0)} MB`,
    );
    console.log("  answers by category:", JSON.stringify(byCategory));
    console.log(
      "  over the limit (26 MiB):",
      JSON.stringify(overLimit.map((o) => `${o.chunked ? "chunked" : "declared"} → ${o.status || "closed"} ${o.text.slice(0, 120)}`)),
    );
    if (fivexx.length) {
      console.log("  first 5xx (replay: generate(seed, i, hooks)):", fivexx.slice(0, 5));
      console.log(`  service errors:\n${errorLines(svc, 5)}`);
    }
    if (!svc.alive()) console.log(`  the service DIED (exit ${svc.proc.exitCode}, signal ${svc.proc.signalCode}):\n${svc.output().slice(-3000)}`);

    expect(sent).toBe(TOTAL);
    expect(svc.alive()).toBe(true);
    expect(health).toBe(200);
    expect(fivexx).toEqual([]);
    expect(launchedUnproven).toEqual([]);
    for (const o of overLimit.filter((x) => x.status !== 0)) {
      expect(o.status).toBe(413);
      if (o.text.startsWith("{")) expect(JSON.parse(o.text)).toMatchObject({ error: "payload_too_large" });
    }
    expect(rssPeak).toBeLessThan(RSS_LIMIT);
    // Not growing without bound: the second half adds little over the first half's level.
    expect(rssEnd - rssAt(0.5)).toBeLessThan(96 * MB);
  });
});
