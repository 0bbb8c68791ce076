import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepAlive, type Reply } from "./lib/http.js";
import { deliveryStatusCounts, pgAvailable, runsOfWebhook, startCluster, type Cluster } from "./lib/pg.js";
import { cleanupAll, errorLines, startService, type Service } from "./lib/proc.js";
import { githubPrOpened, seedWideOpen, sendGeneric, sendGithub, type Hook } from "./lib/seed.js";

const N = 1000;

afterAll(cleanupAll);

/** N identical deliveries, all in flight at once, spread round-robin over the processes. */
async function storm(services: Service[], send: (base: string, agent: ReturnType<typeof keepAlive>) => Promise<Reply>) {
  const agents = services.map(() => keepAlive(N));
  try {
    const replies = await Promise.all(Array.from({ length: N }, (_, i) => send(services[i % services.length]!.base, agents[i % services.length]!)));
    return replies;
  } finally {
    agents.forEach((a) => a.destroy());
  }
}

function tally(replies: Reply[]) {
  const bodies = replies.map((r) => (r.status === 200 ? r.json() : { status: `http_${r.status}`, text: r.text }));
  const count = (s: string) => bodies.filter((b) => b.status === s).length;
  const launched = bodies.filter((b) => b.status === "launched");
  return {
    non200: replies.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text}`).slice(0, 5),
    launched: launched.length,
    duplicate: count("duplicate"),
    runIds: new Set(bodies.map((b) => b.run_id)),
    launchedRunId: launched[0]?.run_id as string | undefined,
  };
}

/**
 * N identical deliveries at once: exactly one launches. Then N more: every process has seen
 * the key held by now, so these take the replay's path (the key check and the duplicate's row
 * alone), and none launches.
 */
async function checkOne(label: string, services: Service[], hook: Hook, store: { sqliteFile?: string; pgUrl?: string }, send: (base: string, agent: ReturnType<typeof keepAlive>) => Promise<Reply>) {
  const t0 = Date.now();
  const t = tally(await storm(services, send));
  const runs = await runsOfWebhook(store, hook.id);
  console.log(`duplicates ${label}: ${N} concurrent identical → launched ${t.launched}, duplicate ${t.duplicate}, run rows ${runs.length}, distinct run_ids ${t.runIds.size} (${Date.now() - t0} ms)`);
  if (t.non200.length) for (const s of services) console.log(`service :${s.port} errors:\n${errorLines(s)}`);
  expect(t.non200).toEqual([]);
  expect(t.launched).toBe(1);
  expect(t.duplicate).toBe(N - 1);
  expect([...t.runIds]).toEqual([t.launchedRunId]);
  expect(runs).toEqual([t.launchedRunId]);

  const t1 = Date.now();
  const again = tally(await storm(services, send));
  const rows = await deliveryStatusCounts(store, hook.id);
  console.log(`duplicates ${label}: ${N} more after it → launched ${again.launched}, duplicate ${again.duplicate}, delivery rows ${JSON.stringify(rows)} (${Date.now() - t1} ms)`);
  expect(again.non200).toEqual([]);
  expect(again.launched).toBe(0);
  expect([...again.runIds]).toEqual([t.launchedRunId]);
  expect(await runsOfWebhook(store, hook.id)).toEqual([t.launchedRunId]);
  expect(rows).toEqual({ launched: 1, duplicate: 2 * N - 1 });
}

describe("duplicates: 1000 concurrent identical deliveries → exactly one run, and none from 1000 more", () => {
  describe("SQLite, one process", () => {
    let svc: Service;
    beforeAll(async () => {
      svc = await startService();
    });
    afterAll(() => svc?.stop());
    const store = () => ({ sqliteFile: path.join(svc.dataDir, "service.db") });

    it("forge_b signed pull_request.opened", async () => {
      const { hook } = await seedWideOpen(svc.base, "forge_b");
      const body = JSON.stringify(githubPrOpened("5".repeat(40)));
      await checkOne("SQLite forge_b", [svc], hook, store(), (base, agent) => sendGithub(base, hook, body, agent));
    });

    it("generic with one idempotency_key", async () => {
      const { hook } = await seedWideOpen(svc.base, "generic");
      const body = { bot: "review-pr", vars: { a: "1" }, idempotency_key: "same-key" };
      await checkOne("SQLite generic", [svc], hook, store(), (base, agent) => sendGeneric(base, hook, body, agent));
    });
  });

  describe.skipIf(!pgAvailable())("PostgreSQL, two processes at once", () => {
    let cluster: Cluster;
    let dbUrl: string;
    let a: Service;
    let b: Service;
    beforeAll(async () => {
      cluster = await startCluster();
      dbUrl = await cluster.createDatabase();
      a = await startService({ databaseUrl: dbUrl }); // migrates first
      b = await startService({ databaseUrl: dbUrl });
    });
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      cluster?.stop();
    });

    it("forge_b signed pull_request.opened, split across both processes", async () => {
      const { hook } = await seedWideOpen(a.base, "forge_b");
      const body = JSON.stringify(githubPrOpened("6".repeat(40)));
      await checkOne("PostgreSQL×2 forge_b", [a, b], hook, { pgUrl: dbUrl }, (base, agent) => sendGithub(base, hook, body, agent));
    });

    it("generic with one idempotency_key, split across both processes", async () => {
      const { hook } = await seedWideOpen(b.base, "generic");
      const body = { bot: "review-pr", vars: { a: "1" }, idempotency_key: "same-key" };
      await checkOne("PostgreSQL×2 generic", [a, b], hook, { pgUrl: dbUrl }, (base, agent) => sendGeneric(base, hook, body, agent));
    });
  });
});
