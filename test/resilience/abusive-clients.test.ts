/**
 * Abusive clients against a real service process: unauthenticated uploads of forge-sized bodies
 * (the memory figure), and silent, idle, slow and never-reading pipelining connections at once
 * (the connection figure). The README states both bounds.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { cleanupAll, ROOT, sleep, START_NODE_ARGS, startService, type Service } from "./lib/proc.js";
import { seedWideOpen } from "./lib/seed.js";
import { healthLatency, postRaw } from "./lib/sockets.js";

const MiB = 1024 * 1024;
const ABUSE = path.join(ROOT, "test/resilience/lib/abuse.mjs");
/** The bench's peak RSS under load (bench/RESULTS.md): the connection figure's bound is this + 64 MiB. */
const BENCH_PEAK_RSS = 150 * MiB;

afterAll(cleanupAll);

describe("uploads of 24 MiB bodies, 64 at once", () => {
  let svc: Service | undefined;
  afterEach(async () => svc?.stop());
  const body = Buffer.alloc(24 * MiB, "x");
  const head = (path: string, extra = "") =>
    `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n${extra}\r\n`;
  const settle = async (s: Service) => {
    await sleep(500);
    return s.rssBytes();
  };

  it("to a webhook that does not exist: every one refused unread, the process's peak RSS within 32 MiB of its start", async () => {
    svc = await startService();
    const before = await settle(svc);
    const statuses = await Promise.all(Array.from({ length: 64 }, () => postRaw(svc!.port, head("/api/webhooks/forge_b/whk_nope"), body)));
    const peak = svc.peakRssBytes();
    console.log(`unknown webhook: RSS ${mb(before)} → peak ${mb(peak)}; answers ${summary(statuses)}`);
    expect(statuses.every((s) => s === 401 || s === null)).toBe(true);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
    expect(peak - before).toBeLessThan(32 * MiB);
  });

  it("to a real webhook with a wrong signature: read only within the body budget (the rest 503), the peak within twice the budget of the start", async () => {
    svc = await startService();
    const { hook } = await seedWideOpen(svc.base, "forge_b");
    const before = await settle(svc);
    const extra = `x-github-event: pull_request\r\nx-hub-signature-256: sha256=${"0".repeat(64)}\r\n`;
    const statuses = await Promise.all(Array.from({ length: 64 }, () => postRaw(svc!.port, head(`/api/webhooks/forge_b/${hook.id}`, extra), body)));
    const peak = svc.peakRssBytes();
    console.log(`wrong signature: RSS ${mb(before)} → peak ${mb(peak)}; answers ${summary(statuses)}`);
    expect(statuses.every((s) => s === 401 || s === 503 || s === null)).toBe(true);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(peak - before).toBeLessThan(2 * 64 * MiB);
    expect(svc.alive()).toBe(true);
  });
});

describe("1,000 silent, 1,000 idle keep-alive, 100 slowloris and 20 never-reading pipelining connections at once", () => {
  it(`answers /healthz within 100 ms throughout, closes the pipeliners, and stays under the bench's peak RSS + 64 MiB`, async () => {
    // Started as `npm start` starts it: its heap flags are part of the figure.
    expect(START_NODE_ARGS.length).toBeGreaterThan(0);
    const svc = await startService({ nodeArgs: START_NODE_ARGS });
    const { hook } = await seedWideOpen(svc.base, "generic");
    const delivery = `POST /api/webhooks/generic/${hook.id} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-service-webhook-token: ${hook.token}\r\ncontent-length: 2\r\n\r\n{}`;
    // The clients run in a process of their own, so that nothing but the service delays the probes.
    const abuser = spawn(process.execPath, [ABUSE, String(svc.port), Buffer.from(delivery).toString("base64")], { stdio: ["pipe", "pipe", "inherit"] });
    const lines = readline.createInterface({ input: abuser.stdout! })[Symbol.asyncIterator]();
    const next = async () => String((await lines.next()).value ?? "");
    const status = async () => {
      abuser.stdin!.write("status\n");
      return JSON.parse(await next()) as { silent: number; idle: number; slow: number; pipelining: number };
    };
    try {
      expect(await next()).toBe("ready");
      // Every connection made and the 1,000 keep-alive ones answered once, then the probes.
      await sleep(2000);
      const latencies: number[] = [];
      let peakRss = 0;
      for (let i = 0; i < 20; i++) {
        latencies.push(await healthLatency(svc.port));
        peakRss = Math.max(peakRss, svc.rssBytes());
        await sleep(200);
      }
      const during = await status();
      const sorted = [...latencies].sort((a, b) => a - b);
      console.log(
        `healthz ${latencies.map((l) => l.toFixed(0)).join(" ")} ms: median ${sorted[10]!.toFixed(1)}, p90 ${sorted[18]!.toFixed(1)}, max ${sorted[19]!.toFixed(1)} ms; RSS peak ${mb(peakRss)}; open ${JSON.stringify(during)}`,
      );
      expect(sorted[19]).toBeLessThan(100);
      expect(peakRss).toBeLessThan(BENCH_PEAK_RSS + 64 * MiB);
      expect(during).toMatchObject({ silent: 1000, idle: 1000, slow: 100 });
      // Each pipelining connection was closed once it had more than 16 requests unanswered.
      expect(during.pipelining).toBe(0);
      // Past the headers timeout (10 s from their start, checked every second) the silent and slow ones are closed.
      await sleep(9_000);
      expect(await status()).toMatchObject({ silent: 0, slow: 0 });
    } finally {
      abuser.stdin!.write("stop\n");
      await svc.stop();
    }
  });
});

const mb = (n: number) => `${(n / MiB).toFixed(0)} MiB`;
function summary(statuses: (number | null)[]): string {
  const counts = new Map<string, number>();
  for (const s of statuses) counts.set(String(s ?? "closed"), (counts.get(String(s ?? "closed")) ?? 0) + 1);
  return [...counts].map(([k, v]) => `${k}×${v}`).join(", ");
}
