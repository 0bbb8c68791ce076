import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepAlive, request } from "./lib/http.js";
import { findLost, pgAvailable, startCluster, type Ack, type Cluster } from "./lib/pg.js";
import { cleanupAll, errorLines, sleep, startService, type Service } from "./lib/proc.js";
import { seedWideOpen, sendGeneric } from "./lib/seed.js";

const CLIENTS = 8;
const BEFORE_MS = 3_000;
const OUTAGE_MS = 10_000;
const AFTER_MS = 3_000;
const RECOVERY_LIMIT_MS = 15_000;

afterAll(cleanupAll);

interface Sample {
  start: number;
  end: number;
  status: number; // 0 = connection-level failure
  text: string;
}

describe.skipIf(!pgAvailable())("store outage: PostgreSQL stopped for 10 s under load", () => {
  let cluster: Cluster;
  let dbUrl: string;
  let svc: Service;
  beforeAll(async () => {
    cluster = await startCluster();
    dbUrl = await cluster.createDatabase();
    svc = await startService({ databaseUrl: dbUrl });
  });
  afterAll(async () => {
    await svc?.stop();
    cluster?.stop();
  });

  it("answers 503 meanwhile, never a 2xx without a stored row, and recovers without a restart", async () => {
    const { hook } = await seedWideOpen(svc.base);
    const pid = svc.pid;
    const samples: Sample[] = [];
    const ready: Sample[] = [];
    const acks: Ack[] = [];
    const agent = keepAlive(CLIENTS);
    let stopAt = Number.POSITIVE_INFINITY;
    let seq = 0;
    const client = async (c: number) => {
      while (Date.now() < stopAt) {
        const start = Date.now();
        try {
          const r = await sendGeneric(svc.base, hook, { bot: "review-pr", vars: {}, idempotency_key: `outage-${c}-${seq++}` }, agent, 20_000);
          samples.push({ start, end: Date.now(), status: r.status, text: r.text });
          if (r.status >= 200 && r.status < 300) {
            const b = r.json();
            acks.push({ deliveryId: b.delivery_id, runId: b.run_id });
          } else await sleep(25);
        } catch (err) {
          samples.push({ start, end: Date.now(), status: 0, text: String(err) });
          await sleep(25);
        }
      }
    };
    const readiness = async () => {
      while (Date.now() < stopAt) {
        const start = Date.now();
        try {
          const r = await request(`${svc.base}/readyz`, { timeoutMs: 5000 });
          ready.push({ start, end: Date.now(), status: r.status, text: r.text });
        } catch (err) {
          ready.push({ start, end: Date.now(), status: 0, text: String(err) });
        }
        await sleep(250);
      }
    };

    const running = [readiness(), ...Array.from({ length: CLIENTS }, (_, c) => client(c))];
    await sleep(BEFORE_MS);
    await cluster.crash();
    const down = Date.now();
    await sleep(OUTAGE_MS);
    const upBegin = Date.now();
    await cluster.start();
    const up = Date.now();
    // Recovery: the first 2xx delivery that began after the cluster was back.
    let recovered = Number.NaN;
    while (Date.now() - up < RECOVERY_LIMIT_MS) {
      const first = samples.find((s) => s.start >= up && s.status >= 200 && s.status < 300);
      if (first) {
        recovered = first.end;
        break;
      }
      await sleep(100);
    }
    await sleep(AFTER_MS);
    stopAt = Date.now();
    await Promise.all(running);
    agent.destroy();

    const lost = await findLost({ pgUrl: dbUrl }, acks);
    const within = samples.filter((s) => s.start >= down && s.end <= upBegin);
    const is2xx = (s: Sample) => s.status >= 200 && s.status < 300;
    // A delivery racing the stop (begun before PostgreSQL was down) may commit and answer 2xx;
    // `lost` proves each such answer was stored. Once the store is down, none may succeed.
    const outage2xx = samples.filter((s) => s.start >= down && s.end <= upBegin && is2xx(s));
    const tally = (xs: Sample[]) => {
      const m: Record<number, number> = {};
      for (const s of xs) m[s.status] = (m[s.status] ?? 0) + 1;
      return m;
    };
    const bad5xx = samples.filter((s) => s.status >= 500 && s.status !== 503);
    const readyDuring = ready.filter((s) => s.start >= down && s.end <= upBegin);
    console.log(
      `store outage: acknowledged ${acks.length}, 503s ${samples.filter((s) => s.status === 503).length} ` +
        `(${within.filter((s) => s.status === 503).length} wholly inside the outage), lost ${lost.length}, ` +
        `connection failures ${samples.filter((s) => s.status === 0).length}, other 5xx ${bad5xx.length}, ` +
        `recovered ${Number.isNaN(recovered) ? "never" : `${recovered - up} ms`} after PostgreSQL was back, same pid ${svc.pid === pid && svc.alive()}`,
    );
    console.log(
      `  answers inside the outage ${JSON.stringify(tally(within))}, whole run ${JSON.stringify(tally(samples))}, /readyz inside the outage ${JSON.stringify(tally(readyDuring))}`,
    );
    const odd = within.filter((s) => s.status !== 503);
    if (odd.length || bad5xx.length) {
      console.log(
        "  first non-503 answers inside the outage:",
        odd.slice(0, 3).map((s) => `${s.status} ${s.text.slice(0, 300)}`),
      );
      console.log(
        "  first other 5xx:",
        bad5xx.slice(0, 3).map((s) => `${s.status} ${s.text.slice(0, 300)}`),
      );
      console.log(`  service errors:\n${errorLines(svc, 3)}`);
    }

    if (!svc.alive()) {
      console.log(
        `  the service process DIED during the outage (exit code ${svc.proc.exitCode}, signal ${svc.proc.signalCode}); its last output:\n${svc.output().slice(-3000)}`,
      );
    }
    expect(svc.alive()).toBe(true);
    expect(svc.pid).toBe(pid);
    expect(outage2xx).toEqual([]);
    expect(within.length).toBeGreaterThan(0);
    expect(odd.map((s) => `${s.status} ${s.text}`)).toEqual([]); // every answer while the store is down is 503
    expect(bad5xx.map((s) => `${s.status} ${s.text}`)).toEqual([]);
    expect(recovered - up).toBeLessThan(RECOVERY_LIMIT_MS);
    expect(lost).toEqual([]);
    expect(acks.length).toBeGreaterThan(100);
  });
});
