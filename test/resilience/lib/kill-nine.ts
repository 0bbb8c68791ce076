/**
 * The kill -9 harness: deliveries stream in from many keep-alive clients while the target
 * process is SIGKILLed at random moments and restarted on the same port and data dir. Every
 * (delivery_id, run_id) answered 2xx "launched" is recorded; afterwards the caller checks
 * each against the store.
 */
import { keepAlive, request } from "./http.js";
import type { Ack } from "./pg.js";
import { prng, sleep, type Service } from "./proc.js";

export interface KillNineOptions {
  /** Starts the target (again) on the same port and data dir; resolves when /readyz is 200. */
  start: () => Promise<Service>;
  /** Delivery path and token of the generic webhook. */
  path: string;
  token: string;
  durationMs: number;
  kills: number;
  clients: number;
  seed: number;
}

export interface KillNineResult {
  acks: Ack[];
  kills: number;
  /** Answers by status code (0 = connection-level failure). */
  statuses: Record<number, number>;
  other: string[];
  service: Service;
}

export async function killNine(o: KillNineOptions): Promise<KillNineResult> {
  const rnd = prng(o.seed);
  let svc = await o.start();
  const base = svc.base;
  const started = Date.now();
  const end = started + o.durationMs;
  // Kill moments: random, at least 1.2 s apart, none in the first or last second.
  const span = o.durationMs - 2000;
  const slot = span / o.kills;
  const killAt = Array.from({ length: o.kills }, (_, i) => started + 1000 + i * slot + rnd.next() * Math.max(0, slot - 1200));

  const acks: Ack[] = [];
  const statuses: Record<number, number> = {};
  const other: string[] = [];
  const agent = keepAlive(o.clients);
  let seq = 0;

  const client = async (c: number) => {
    while (Date.now() < end) {
      const key = `kill9-${o.seed}-${c}-${seq++}`;
      try {
        const r = await request(`${base}${o.path}`, {
          method: "POST",
          agent,
          timeoutMs: 5000,
          headers: { "content-type": "application/json", "x-service-webhook-token": o.token },
          body: JSON.stringify({ bot: "review-pr", vars: { n: String(seq) }, idempotency_key: key }),
        });
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (r.status >= 200 && r.status < 300) {
          const b = r.json();
          if (b.status === "launched") acks.push({ deliveryId: b.delivery_id, runId: b.run_id });
          else if (other.length < 20) other.push(r.text);
        } else if (other.length < 20) other.push(`${r.status} ${r.text}`);
      } catch {
        statuses[0] = (statuses[0] ?? 0) + 1;
        await sleep(20);
      }
    }
  };

  let kills = 0;
  const killer = async () => {
    for (const at of killAt) {
      await sleep(Math.max(0, at - Date.now()));
      if (Date.now() >= end) break;
      await svc.kill9();
      kills++;
      svc = await o.start();
    }
  };

  await Promise.all([killer(), ...Array.from({ length: o.clients }, (_, c) => client(c))]);
  agent.destroy();
  return { acks, kills, statuses, other, service: svc };
}
