/**
 * Abusive clients against a real service process: unauthenticated uploads of forge-sized bodies
 * (the memory figure), and silent, idle, slow and never-reading pipelining connections at once
 * (the connection figure). The README states both bounds.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { cleanupAll, sleep, START_NODE_ARGS, startService, type Service } from "./lib/proc.js";
import { seedWideOpen } from "./lib/seed.js";
import { healthLatency, idleKeepAlive, pipeliners, postRaw, silent, slowloris } from "./lib/sockets.js";

const MiB = 1024 * 1024;
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
  it(`answers /healthz within 100 ms throughout, and stays under the bench's peak RSS + 64 MiB`, async () => {
    // Started as `npm start` starts it: its heap flags are part of the figure.
    const svc = await startService({ nodeArgs: START_NODE_ARGS });
    expect(START_NODE_ARGS.length).toBeGreaterThan(0);
    const { hook } = await seedWideOpen(svc.base, "generic");
    const delivery = `POST /api/webhooks/generic/${hook.id} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-service-webhook-token: ${hook.token}\r\ncontent-length: 2\r\n\r\n{}`;
    const quiet = silent(svc.port, 1000);
    const idle = idleKeepAlive(svc.port, 1000);
    const slow = slowloris(svc.port, 100);
    const pipes = pipeliners(svc.port, 20, `GET /api/orgs HTTP/1.1\r\nhost: x\r\n\r\n${delivery}`);
    try {
      // Every connection made and answered once (the 1,000 keep-alive ones), then the probes.
      await sleep(2000);
      const latencies: number[] = [];
      let peakRss = 0;
      for (let i = 0; i < 16; i++) {
        latencies.push(await healthLatency(svc.port));
        peakRss = Math.max(peakRss, svc.rssBytes());
        await sleep(250);
      }
      console.log(
        `healthz ${latencies.map((l) => l.toFixed(0)).join(" ")} ms: max ${Math.max(...latencies).toFixed(1)} ms, median ${median(latencies).toFixed(1)} ms; RSS peak ${mb(peakRss)}; pipelining connections opened ${pipes.opened()}`,
      );
      expect(Math.max(...latencies)).toBeLessThan(100);
      expect(peakRss).toBeLessThan(BENCH_PEAK_RSS + 64 * MiB);
      expect(pipes.opened()).toBeGreaterThan(20);
      // Past the headers timeout (10 s from their start, checked every second) the silent and slow ones are closed.
      await sleep(9_000);
      const open = (xs: { destroyed: boolean; readableEnded: boolean }[]) => xs.filter((s) => !s.destroyed && !s.readableEnded).length;
      expect(open(quiet)).toBe(0);
      expect(open(slow.sockets)).toBe(0);
    } finally {
      pipes.stop();
      slow.stop();
      for (const s of [...quiet, ...idle, ...slow.sockets]) s.destroy();
      await svc.stop();
    }
  });
});

const mb = (n: number) => `${(n / MiB).toFixed(0)} MiB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function summary(statuses: (number | null)[]): string {
  const counts = new Map<string, number>();
  for (const s of statuses) counts.set(String(s ?? "closed"), (counts.get(String(s ?? "closed")) ?? 0) + 1);
  return [...counts].map(([k, v]) => `${k}×${v}`).join(", ");
}
