import type http from "node:http";
import type net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepAlive, type Reply } from "./lib/http.js";
import { deliveryStatusCounts, pgAvailable, runsOfWebhook, startCluster, type Cluster } from "./lib/pg.js";
import { cleanupAll, errorLines, startService, type Service } from "./lib/proc.js";
import { githubPrOpened, seedWideOpen, sendGeneric, sendGithub, type Hook } from "./lib/seed.js";

const N = 1000;

afterAll(cleanupAll);

/**
 * Keep-alive agents whose new sockets hold every byte until `n` of them (across the agents) are
 * connected, then all let go in one go: the storm's requests are all sent before any is answered.
 */
function heldAgents(count: number, n: number): http.Agent[] {
  const held: net.Socket[] = [];
  return Array.from({ length: count }, () => {
    const agent = keepAlive(n);
    const create = agent.createConnection.bind(agent) as (o: object, cb?: unknown) => net.Socket;
    agent.createConnection = ((options: object, cb?: unknown) => {
      const sock = create(options, cb);
      sock.cork();
      sock.once("connect", () => {
        held.push(sock);
        if (held.length === n) for (const s of held) s.uncork();
      });
      return sock;
    }) as typeof agent.createConnection;
    return agent;
  });
}

/** N identical deliveries, all in flight at once, spread round-robin over the processes. */
async function storm(services: Service[], send: (base: string, agent: ReturnType<typeof keepAlive>) => Promise<Reply>) {
  const agents = heldAgents(services.length, N);
  try {
    const replies = await Promise.all(Array.from({ length: N }, (_, i) => send(services[i % services.length]!.base, agents[i % services.length]!)));
    return replies;
  } finally {
    for (const a of agents) a.destroy();
  }
}

/**
 * Whether the storm's requests were in flight together: when the last was sent against the
 * first answer, and the most sent but not yet answered at any moment.
 */
function overlap(replies: Reply[]) {
  const lastSent = Math.max(...replies.map((r) => r.sentAt));
  const firstAnswer = Math.min(...replies.map((r) => r.answeredAt));
  const events = replies
    .flatMap(
      (r) =>
        [
          [r.sentAt, 1],
          [r.answeredAt, -1],
        ] as const,
    )
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let inFlight = 0;
  let peak = 0;
  for (const [, step] of events) {
    inFlight += step;
    peak = Math.max(peak, inFlight);
  }
  return {
    allSentBeforeFirstAnswer: lastSent < firstAnswer,
    lastSentMs: lastSent - Math.min(...replies.map((r) => r.sentAt)),
    firstAnswerMs: firstAnswer - Math.min(...replies.map((r) => r.sentAt)),
    peak,
  };
}

function tally(replies: Reply[]) {
  const bodies = replies.map((r) => (r.status === 200 ? r.json() : { status: `http_${r.status}`, text: r.text }));
  const count = (s: string) => bodies.filter((b) => b.status === s).length;
  const launched = bodies.filter((b) => b.status === "launched");
  return {
    non200: replies
      .filter((r) => r.status !== 200)
      .map((r) => `${r.status} ${r.text}`)
      .slice(0, 5),
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
async function checkOne(
  label: string,
  services: Service[],
  hook: Hook,
  store: { sqliteFile?: string; pgUrl?: string },
  send: (base: string, agent: ReturnType<typeof keepAlive>) => Promise<Reply>,
) {
  const t0 = Date.now();
  const replies = await storm(services, send);
  const t = tally(replies);
  const o = overlap(replies);
  const runs = await runsOfWebhook(store, hook.id);
  console.log(
    `duplicates ${label}: ${N} concurrent identical → launched ${t.launched}, duplicate ${t.duplicate}, run rows ${runs.length}, distinct run_ids ${t.runIds.size} (${Date.now() - t0} ms)`,
  );
  console.log(
    `  in flight together: last sent at ${o.lastSentMs.toFixed(1)} ms, first answer at ${o.firstAnswerMs.toFixed(1)} ms, at most ${o.peak} in flight`,
  );
  if (t.non200.length) for (const s of services) console.log(`service :${s.port} errors:\n${errorLines(s)}`);
  expect(t.non200).toEqual([]);
  expect(o).toMatchObject({ allSentBeforeFirstAnswer: true, peak: N });
  expect(t.launched).toBe(1);
  expect(t.duplicate).toBe(N - 1);
  expect([...t.runIds]).toEqual([t.launchedRunId]);
  expect(runs).toEqual([t.launchedRunId]);

  const t1 = Date.now();
  const againReplies = await storm(services, send);
  const again = tally(againReplies);
  expect(overlap(againReplies)).toMatchObject({ allSentBeforeFirstAnswer: true, peak: N });
  const rows = await deliveryStatusCounts(store, hook.id);
  console.log(
    `duplicates ${label}: ${N} more after it → launched ${again.launched}, duplicate ${again.duplicate}, delivery rows ${JSON.stringify(rows)} (${Date.now() - t1} ms)`,
  );
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
