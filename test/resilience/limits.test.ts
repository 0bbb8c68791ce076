import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, keepAlive, type Reply } from "./lib/http.js";
import { pgAvailable, startCluster, type Cluster } from "./lib/pg.js";
import { cleanupAll, errorLines, startService, type Service } from "./lib/proc.js";
import { admin, createHook, createOrg, createTeam, sendGeneric, teamAdminToken, type Org } from "./lib/seed.js";

/** 200 requests, all in flight at once, round-robin over the processes. */
const PARALLEL = 200;

afterAll(cleanupAll);

async function parallel(services: Service[], send: (base: string, agent: ReturnType<typeof keepAlive>, i: number) => Promise<Reply>) {
  const agents = services.map(() => keepAlive(PARALLEL));
  try {
    return await Promise.all(Array.from({ length: PARALLEL }, (_, i) => send(services[i % services.length]!.base, agents[i % services.length]!, i)));
  } finally {
    for (const a of agents) a.destroy();
  }
}

function codes(replies: Reply[]) {
  const by: Record<string, number> = {};
  for (const r of replies) {
    let key = String(r.status);
    try {
      const b = JSON.parse(r.text);
      // Deliveries: 200 + delivery status; denials: status + error token; run launches: 201 alone.
      if (r.status !== 201) key += ` ${b.error ?? b.status ?? ""}`.trimEnd();
    } catch {
      // not JSON
    }
    by[key] = (by[key] ?? 0) + 1;
  }
  return by;
}

const usage = async (base: string, org: Org) => admin(base).get(`/api/orgs/${org.id}/usage`);

function suite(label: string, boot: () => Promise<Service[]>, shutdown: () => Promise<void>) {
  describe(label, () => {
    let svcs: Service[];
    let base: string;
    beforeAll(async () => {
      svcs = await boot();
      base = svcs[0]!.base;
    });
    afterAll(shutdown);

    const report = (name: string, limit: number, admitted: number, by: Record<string, number>, counter: string, before: number, after: number) => {
      console.log(
        `limits ${label} ${name}: limit ${limit}, ${PARALLEL} parallel → admitted ${admitted}, overshoot ${Math.max(0, admitted - limit)}, ` +
          `${counter} ${before} → ${after} (answers ${JSON.stringify(by)})`,
      );
      if (by["500 internal"]) for (const s of svcs) console.log(errorLines(s));
    };

    it("MaxConcurrentRuns 5: exactly 5 launches, 195 × 429 concurrency_cap_exceeded", async () => {
      const a = admin(base);
      const org = await createOrg(a);
      const team = await createTeam(a, org, { max_concurrent_runs: 5 });
      const token = await teamAdminToken(a, team);
      const before = (await usage(base, org)).runs_this_month;
      const replies = await parallel(svcs, (b, agent) =>
        api(b, token, agent)
          .call("POST", "/api/runs", { team_id: team.id, bot: "review-pr", vars: {} })
          .then((r) => ({ status: r.status, text: JSON.stringify(r.body) }) as Reply),
      );
      const by = codes(replies);
      const after = await usage(base, org);
      const runs = await api(base, token).get(`/api/teams/${team.id}/runs?limit=500`);
      report("MaxConcurrentRuns", 5, by["201"] ?? 0, by, "runs_this_month", before, after.runs_this_month);
      expect(by).toEqual({ "201": 5, "429 concurrency_cap_exceeded": 195 });
      expect(after.runs_this_month).toBe(before + 5);
      expect(after.teams.find((t: any) => t.id === team.id).active_runs).toBe(5);
      expect(runs.runs ?? runs).toHaveLength(5);
    });

    it("MonthlyRunQuota 3: exactly 3 launches, 197 × 402 monthly_run_quota_exceeded", async () => {
      const a = admin(base);
      const org = await createOrg(a, { monthly_run_quota: 3 });
      const team = await createTeam(a, org);
      const token = await teamAdminToken(a, team);
      const before = (await usage(base, org)).runs_this_month;
      const replies = await parallel(svcs, (b, agent) =>
        api(b, token, agent)
          .call("POST", "/api/runs", { team_id: team.id, bot: "review-pr", vars: {} })
          .then((r) => ({ status: r.status, text: JSON.stringify(r.body) }) as Reply),
      );
      const by = codes(replies);
      const after = await usage(base, org);
      report("MonthlyRunQuota", 3, by["201"] ?? 0, by, "runs_this_month", before, after.runs_this_month);
      expect(by).toEqual({ "201": 3, "402 monthly_run_quota_exceeded": 197 });
      expect(after.runs_this_month).toBe(3);
    });

    it("team launch bucket (launch_rate_per_min 10): 10 launches plus at most the refill, the rest 429 launch_rate_limited", async () => {
      const a = admin(base);
      const org = await createOrg(a);
      const team = await createTeam(a, org, { launch_rate_per_min: 10 });
      const token = await teamAdminToken(a, team);
      const t0 = Date.now();
      const replies = await parallel(svcs, (b, agent) =>
        api(b, token, agent)
          .call("POST", "/api/runs", { team_id: team.id, bot: "review-pr", vars: {} })
          .then((r) => ({ status: r.status, text: JSON.stringify(r.body) }) as Reply),
      );
      const refill = Math.floor(((Date.now() - t0) / 60_000) * 10);
      const by = codes(replies);
      const after = await usage(base, org);
      report("launch bucket", 10 + refill, by["201"] ?? 0, by, "runs_this_month", 0, after.runs_this_month);
      expect(by["201"]).toBeGreaterThanOrEqual(10);
      expect(by["201"]).toBeLessThanOrEqual(10 + refill);
      expect(by["429 launch_rate_limited"]).toBe(PARALLEL - by["201"]!);
      expect(after.runs_this_month).toBe(by["201"]);
    });

    for (const [name, orgBody, hookBody] of [
      ["webhook monthly_call_limit 7", { monthly_webhook_calls: 1_000_000 }, { monthly_call_limit: 7 }],
      ["org monthly_webhook_calls 7", { monthly_webhook_calls: 7 }, {}],
    ] as const) {
      it(`${name}: exactly 7 deliveries admitted, 193 × 429 monthly_call_quota_exceeded, counter 7`, async () => {
        const a = admin(base);
        const org = await createOrg(a, orgBody);
        const team = await createTeam(a, org);
        const hook = await createHook(a, team, { provider: "generic", rate: 10_000, burst: 100_000, ...hookBody });
        const replies = await parallel(svcs, (b, agent, i) =>
          sendGeneric(b, hook, { bot: "review-pr", vars: {}, idempotency_key: `q-${i}-${randomUUID()}` }, agent),
        );
        const by = codes(replies);
        const after = await usage(base, org);
        report(name, 7, by["200 launched"] ?? 0, by, "webhook_calls_this_month", 0, after.webhook_calls_this_month);
        expect(by).toEqual({ "200 launched": 7, "429 monthly_call_quota_exceeded": 193 });
        expect(after.webhook_calls_this_month).toBe(7);
        expect(after.runs_this_month).toBe(7);
      });
    }

    it("webhook bucket burst 10 (rate tiny): exactly 10 admitted, 190 × 429 rate_limited, counter 10", async () => {
      const a = admin(base);
      const org = await createOrg(a, { monthly_webhook_calls: 1_000_000 });
      const team = await createTeam(a, org);
      const hook = await createHook(a, team, { provider: "generic", rate: 0.001, burst: 10 });
      const replies = await parallel(svcs, (b, agent, i) =>
        sendGeneric(b, hook, { bot: "review-pr", vars: {}, idempotency_key: `b-${i}-${randomUUID()}` }, agent),
      );
      const by = codes(replies);
      const after = await usage(base, org);
      report("webhook bucket", 10, by["200 launched"] ?? 0, by, "webhook_calls_this_month", 0, after.webhook_calls_this_month);
      expect(by).toEqual({ "200 launched": 10, "429 rate_limited": 190 });
      expect(after.webhook_calls_this_month).toBe(10);
      expect(after.runs_this_month).toBe(10);
    });
  });
}

let sqlite: Service | undefined;
suite(
  "SQLite×1",
  async () => {
    sqlite = await startService();
    return [sqlite];
  },
  async () => sqlite?.stop(),
);

describe.skipIf(!pgAvailable())("on PostgreSQL", () => {
  let cluster: Cluster | undefined;
  let pair: Service[] = [];
  suite(
    "PostgreSQL×2",
    async () => {
      cluster = await startCluster();
      const url = await cluster.createDatabase();
      const first = await startService({ databaseUrl: url });
      pair = [first, await startService({ databaseUrl: url })];
      return pair;
    },
    async () => {
      await Promise.all(pair.map((s) => s.stop()));
      cluster?.stop();
    },
  );
});
