import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { monthOf } from "../core/month.js";
import { githubPullBody } from "../intake/fixtures/fixtures.js";
import type { CommitAnswer, DeliveryCommit } from "../store/delivery-ledger.js";
import { findOrgRuns } from "../store/usage.js";
import { freshTeam, seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../test-support/harness.js";

const sign = (secret: string, body: string) => createHmac("sha256", secret).update(body).digest("hex");
/**
 * A month's runs are counted in one place, whichever path launched them: the gate's transaction
 * (an API launch, a resume, a delivery once a limit applies) and the ledger's one commit (a
 * delivery with no limit: SQLite's commit, PostgreSQL's procedure) add to it, a hand-back takes
 * one off, and the usage view and the run quota read the same number.
 */
describe.each(storeKinds())("a month's run count on %s", (kind) => {
  let t: TestApp;
  let seed: Seed;
  /** What the ledger answered to each commit that carried a launch. */
  const ledgerLaunches: CommitAnswer["kind"][] = [];

  beforeAll(async () => {
    t = await startTestApp(kind, { SERVICE_WEBHOOK_SYNC_DEBOUNCE: "0" });
    seed = await seedTenancy(t);
    const ledger = t.store.ledger;
    const commit = ledger.commit.bind(ledger);
    ledger.commit = async (c: DeliveryCommit) => {
      const answer = await commit(c);
      if (c.launch) ledgerLaunches.push(answer.kind);
      return answer;
    };
  });
  afterAll(() => t.close());

  it("counts launches by the gate and by the one-commit path once each, hand-backs off, and the usage view and the quota agree", async () => {
    const { org, team } = await freshTeam(seed);
    const made = (await seed.teamAdmin.api.post(`/api/teams/${team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] })).body;
    const hook = { id: made.config.id as string, token: made.token as string };
    const deliver = (n: number) => {
      const body = githubPullBody(n.toString(16).padStart(40, "0"));
      return t.app.inject({
        method: "POST",
        url: `/api/webhooks/forge_b/${hook.id}`,
        payload: body,
        headers: { "content-type": "application/json", "x-github-event": "pull_request", "x-hub-signature-256": `sha256=${sign(hook.token, body)}` },
      });
    };
    const viaApi = () => seed.member.api.post("/api/runs", { team_id: team.id, bot: "review-pr", vars: {} });
    const usage = async () => (await seed.member.api.get(`/api/orgs/${org.id}/usage`)).body;
    const counted = () => findOrgRuns(t.store.db, org.id, monthOf(t.clock.now()));

    // No limit applies: deliveries launch in the ledger's one commit, at once (PostgreSQL batches them).
    const delivered = await Promise.all([1, 2, 3, 4, 5, 6].map(deliver));
    expect(delivered.map((r) => [r.statusCode, JSON.parse(r.body).status])).toEqual(Array(6).fill([200, "launched"]));
    expect(ledgerLaunches.splice(0)).toEqual(Array(6).fill("launched"));
    // API launches take the gate's transaction.
    const launched = await Promise.all([viaApi(), viaApi(), viaApi()]);
    expect(launched.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(ledgerLaunches).toEqual([]);
    expect(await counted()).toBe(9);

    // A hand-back from each path's runs, then a resume (a new metered attempt, by the gate).
    const deliveredRun = (
      await t.store.db.selectFrom("runs").select("id").where("team_id", "=", team.id).where("source", "!=", "api").executeTakeFirstOrThrow()
    ).id;
    await t.services.launcher.failAfterAdmission(deliveredRun, "publish failed");
    await t.services.launcher.failAfterAdmission(launched[0]!.body.id, "publish failed");
    expect(await counted()).toBe(7);
    expect((await seed.member.api.post(`/api/runs/${deliveredRun}/resume`)).status).toBe(200);
    const count = 8;
    expect(await counted()).toBe(count);
    expect(await usage()).toMatchObject({ runs_this_month: count, monthly_run_quota: 0 });

    // The quota reads the same count: set at it, every path is refused, the pre-check included.
    expect((await seed.admin.patch(`/api/admin/orgs/${org.id}`, { monthly_run_quota: count })).status).toBe(200);
    expect(await t.services.launcher.precheck(team.id, false)).toMatchObject({ error: "monthly_run_quota_exceeded" });
    const refused = await viaApi();
    expect([refused.status, refused.body.error]).toEqual([402, "monthly_run_quota_exceeded"]);
    const refusedDelivery = await deliver(7);
    expect([refusedDelivery.statusCode, JSON.parse(refusedDelivery.body).error]).toEqual([402, "monthly_run_quota_exceeded"]);
    // One more allowed: one delivery launches, now by the gate, and the next launch is refused.
    expect((await seed.admin.patch(`/api/admin/orgs/${org.id}`, { monthly_run_quota: count + 1 })).status).toBe(200);
    expect(await t.services.launcher.precheck(team.id, false)).toBeUndefined();
    ledgerLaunches.splice(0);
    expect(JSON.parse((await deliver(8)).body).status).toBe("launched");
    expect(ledgerLaunches).toEqual(["gate"]);
    expect((await viaApi()).body.error).toBe("monthly_run_quota_exceeded");
    expect(await counted()).toBe(count + 1);
    expect(await usage()).toMatchObject({ runs_this_month: count + 1, monthly_run_quota: count + 1 });
  });
});
