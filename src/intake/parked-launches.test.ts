import { createHmac } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { randomIds } from "../core/ids.js";
import { monthOf } from "../core/month.js";
import { seedTenancy, startTestApp, storeKinds, type TestApp } from "../test-support/harness.js";
import { githubExample, loadGithubExamples } from "./fixtures/fixtures.js";
import { OverlapStep } from "./pipeline/overlap.js";
import { MAX_ATTEMPTS, ParkedLaunches, retryDelayMs } from "./parked-launches.js";

const examples = loadGithubExamples();
const MINUTE = 60_000;
const QUIET = 3 * MINUTE;
const MAX_WAIT = 15 * MINUTE;

describe.each(storeKinds())("parked synchronize launches on %s", (kind) => {
  let t: TestApp;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;
  let pr = 100;

  beforeAll(async () => {
    t = await startTestApp(kind);
    seed = await seedTenancy(t);
  });
  afterAll(() => t.close());

  type Hook = { id: string; token: string; teamId: string };
  const createHook = async (teamId = seed.team.id, body: Record<string, unknown> = {}): Promise<Hook> => {
    const r = await seed.admin.post(`/api/teams/${teamId}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"], review_on_sync: true, ...body });
    expect(r.status).toBe(201);
    return { id: r.body.config.id, token: r.body.token, teamId };
  };
  /** A synchronize push to pull request `number`, with its head sha and the forge's event time. */
  const push = async (hook: Hook, number: number, sha: string, eventAt: number, action = "synchronize") => {
    const p = githubExample(examples, "pull_request", action === "synchronize" ? "synchronize" : action) as any;
    p.number = number;
    p.pull_request.number = number;
    p.pull_request.head.sha = sha.padEnd(40, "0");
    p.pull_request.draft = false;
    p.pull_request.updated_at = new Date(eventAt).toISOString();
    const body = JSON.stringify(p);
    const signature = `sha256=${createHmac("sha256", hook.token).update(body).digest("hex")}`;
    const r = await t.app.inject({
      method: "POST",
      url: `/api/webhooks/forge_b/${hook.id}`,
      payload: body,
      headers: { "content-type": "application/json", "x-github-event": "pull_request", "x-hub-signature-256": signature },
    });
    return { status: r.statusCode, body: JSON.parse(r.body) };
  };
  const row = async (hook: Hook, id: string) => {
    const rows = (await seed.admin.get(`/api/teams/${hook.teamId}/webhooks/${hook.id}/deliveries`)).body.deliveries as any[];
    return rows.find((d) => d.id === id);
  };
  /** service_webhook_deliveries_total for forge_b and `status`. */
  const counted = async (status: string) =>
    Number(new RegExp(`service_webhook_deliveries_total\\{provider="forge_b",status="${status}"\\} (\\d+)`).exec(await t.services.metrics.text())?.[1] ?? 0);
  const runsOf = (deliveryId: string) => t.store.db.selectFrom("runs").select(["id", "subject_id"]).where("delivery_id", "=", deliveryId).execute();
  const parkedRow = (deliveryId: string) => t.store.db.selectFrom("parked_launches").selectAll().where("delivery_id", "=", deliveryId).executeTakeFirst();

  it("parks a push (202 deferred, an accepted row under the launch's key) and launches it once the quiet window has passed", async () => {
    const hook = await createHook();
    const now = t.clock.now();
    const r = await push(hook, ++pr, "a1", now);
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ status: "deferred", delivery_id: expect.any(String), bot: "review-pr", launch_at: new Date(now + QUIET).toISOString() });
    const id = r.body.delivery_id as string;
    expect(await row(hook, id)).toMatchObject({ status: "accepted", run_id: null, bot_id: "review-pr" });

    t.clock.advance(QUIET - 1);
    expect(await t.services.parked.sweep()).toBe(0);
    expect(await runsOf(id)).toEqual([]);
    t.clock.advance(1);
    expect(await t.services.parked.sweep()).toBe(1);
    const runs = await runsOf(id);
    expect(runs).toHaveLength(1);
    expect(await row(hook, id)).toMatchObject({ status: "launched", run_id: runs[0]!.id, launched_at: new Date(t.clock.now()).toISOString(), attempts: 1 });
    expect(await parkedRow(id)).toBeUndefined();
    expect(await t.services.parked.sweep()).toBe(0);
    // The launched push replayed: its key is held.
    expect((await push(hook, pr, "a1", now)).body).toMatchObject({ status: "duplicate", run_id: runs[0]!.id, original_delivery_id: id });
  });

  it("replaces the parked push with a newer one, re-arming the window; filters an older one; answers a replay as a duplicate", async () => {
    const hook = await createHook();
    const before = { filtered: await counted("filtered"), duplicate: await counted("duplicate"), launched: await counted("launched") };
    const start = t.clock.now();
    const first = await push(hook, ++pr, "b1", start);
    t.clock.advance(2 * MINUTE);
    const newer = await push(hook, pr, "b2", start + 2 * MINUTE);
    expect(newer.status).toBe(202);
    expect(newer.body.launch_at).toBe(new Date(t.clock.now() + QUIET).toISOString());
    expect(await row(hook, first.body.delivery_id)).toMatchObject({ status: "filtered", reason: `superseded by a newer push (${newer.body.delivery_id})` });

    const older = await push(hook, pr, "b0", start - MINUTE);
    expect(older.status).toBe(200);
    expect(older.body).toMatchObject({ status: "filtered", reason: `an older push than the one parked (${newer.body.delivery_id})` });
    const replay = await push(hook, pr, "b2", start + 2 * MINUTE);
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ status: "duplicate", run_id: null, original_delivery_id: newer.body.delivery_id });

    t.clock.advance(2 * MINUTE);
    await t.services.parked.sweep();
    expect(await runsOf(newer.body.delivery_id)).toEqual([]);
    t.clock.advance(MINUTE);
    await t.services.parked.sweep();
    expect(await runsOf(newer.body.delivery_id)).toHaveLength(1);
    expect(await runsOf(first.body.delivery_id)).toEqual([]);
    // Each row counted once it is settled: the superseded and the older push, the replay, the launch.
    expect({ filtered: await counted("filtered"), duplicate: await counted("duplicate"), launched: await counted("launched") }).toEqual({
      filtered: before.filtered + 2,
      duplicate: before.duplicate + 1,
      launched: before.launched + 1,
    });
  });

  it("takes arrival order for pushes of the same event time, and launches a stream of pushes by the maximum wait", async () => {
    const hook = await createHook();
    const start = t.clock.now();
    let last = await push(hook, ++pr, "c0", start);
    for (let i = 1; i <= 7; i++) {
      t.clock.advance(2 * MINUTE);
      last = await push(hook, pr, `c${i}`, start);
      expect(last.status).toBe(202);
    }
    // Pushed at 14 minutes: the quiet window would end at 17, the maximum wait at 15.
    expect(last.body.launch_at).toBe(new Date(start + MAX_WAIT).toISOString());
    t.clock.set(start + MAX_WAIT);
    await t.services.parked.sweep();
    expect(await row(hook, last.body.delivery_id)).toMatchObject({ status: "launched" });
  });

  it("drops a parked launch the webhook no longer asks for, naming why", async () => {
    const cases = [
      [{ enabled: false }, "parked launch dropped: the webhook is disabled or deleted"],
      [{ review_on_sync: false }, "parked launch dropped: review_on_sync was cleared"],
      [{ bot_ids: ["converse"] }, "parked launch dropped: bot review-pr is no longer in bot_ids"],
    ] as const;
    for (const [change, reason] of cases) {
      const hook = await createHook();
      const parked = await push(hook, ++pr, "d1", t.clock.now());
      expect(parked.status).toBe(202);
      expect((await seed.admin.patch(`/api/teams/${hook.teamId}/webhooks/${hook.id}`, change)).status).toBe(200);
      t.clock.advance(QUIET);
      await t.services.parked.sweep();
      expect(await row(hook, parked.body.delivery_id)).toMatchObject({ status: "filtered", reason });
      expect(await runsOf(parked.body.delivery_id)).toEqual([]);
      expect(await parkedRow(parked.body.delivery_id)).toBeUndefined();
    }
  });

  it("applies overlap when the parked push launches: skip drops it while a run is in flight, supersede launches it and cancels that run", async () => {
    const status = (id: string) => t.store.db.selectFrom("runs").select("status").where("id", "=", id).executeTakeFirstOrThrow();
    for (const overlap of ["skip", "supersede"] as const) {
      const hook = await createHook(seed.team.id, { overlap });
      const number = ++pr;
      const first = await push(hook, number, "o1", t.clock.now());
      t.clock.advance(QUIET);
      await t.services.parked.sweep();
      const [inFlight] = await runsOf(first.body.delivery_id);
      const second = await push(hook, number, "o2", t.clock.now());
      expect(second.status).toBe(202);
      t.clock.advance(QUIET);
      await t.services.parked.sweep();
      if (overlap === "skip") {
        expect(await row(hook, second.body.delivery_id)).toMatchObject({
          status: "filtered",
          reason: `parked launch dropped: overlap skip: review-pr already runs on ${inFlight!.subject_id} (${inFlight!.id})`,
        });
        expect(await runsOf(second.body.delivery_id)).toEqual([]);
        expect(await status(inFlight!.id)).toMatchObject({ status: "queued" });
      } else {
        expect(await row(hook, second.body.delivery_id)).toMatchObject({ status: "launched" });
        expect(await status(inFlight!.id)).toMatchObject({ status: "cancelled" });
      }
      expect(await parkedRow(second.body.delivery_id)).toBeUndefined();
    }
  });

  it("skip holds when a run starts between the parked launch's overlap check and its launch", async () => {
    const hook = await createHook(seed.team.id, { overlap: "skip" });
    const number = ++pr;
    const first = await push(hook, number, "r1", t.clock.now());
    t.clock.advance(QUIET);
    await t.services.parked.sweep();
    const [inFlight] = await runsOf(first.body.delivery_id);
    const second = await push(hook, number, "r2", t.clock.now());
    t.clock.advance(QUIET);
    // The check before the launch saw nothing in flight, as when the run was written just after it.
    const spy = vi.spyOn(OverlapStep.prototype, "verdict").mockResolvedValue({ kind: "launch" });
    try {
      await t.services.parked.sweep();
      expect(spy).toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
    expect(await row(hook, second.body.delivery_id)).toMatchObject({
      status: "filtered",
      reason: `parked launch dropped: overlap skip: review-pr already runs on ${inFlight!.subject_id} (${inFlight!.id})`,
    });
    expect(await runsOf(second.body.delivery_id)).toEqual([]);
    expect(await parkedRow(second.body.delivery_id)).toBeUndefined();
  });

  it("drops the launches parked for a pull request when it is closed", async () => {
    const hook = await createHook();
    const parked = await push(hook, ++pr, "e1", t.clock.now());
    const closed = await push(hook, pr, "e1", t.clock.now(), "closed");
    expect(closed.body).toMatchObject({ status: "filtered", reason: "pull request closed: stopped 0 run(s), dropped 1 parked launch(es)" });
    expect(await row(hook, parked.body.delivery_id)).toMatchObject({ status: "filtered", reason: "parked launch dropped: the pull request was closed" });
    t.clock.advance(QUIET);
    expect(await t.services.parked.sweep()).toBe(0);
    expect(await runsOf(parked.body.delivery_id)).toEqual([]);
  });

  it("re-arms a launch the gate refuses for now with a growing wait, and abandons it after the last attempt", async () => {
    const team = (await seed.admin.post(`/api/orgs/${seed.org.id}/teams`, { name: `busy${pr}`, max_concurrent_runs: 1 })).body;
    const busy = await seed.admin.post("/api/runs", { team_id: team.id, bot: "review-pr", vars: {} });
    expect(busy.status).toBe(201);
    const hook = await createHook(team.id);
    const parked = await push(hook, ++pr, "f1", t.clock.now());
    t.clock.advance(QUIET);
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      expect(await t.services.parked.sweep()).toBe(1);
      expect(await parkedRow(parked.body.delivery_id)).toMatchObject({ attempts: attempt, fire_at: t.clock.now() + retryDelayMs(attempt), lease_until: 0 });
      expect(await row(hook, parked.body.delivery_id)).toMatchObject({ status: "accepted" });
      t.clock.advance(retryDelayMs(attempt) - 1);
      expect(await t.services.parked.sweep()).toBe(0);
      t.clock.advance(1);
    }
    expect(await t.services.parked.sweep()).toBe(1);
    expect(await row(hook, parked.body.delivery_id)).toMatchObject({
      status: "launch_error",
      denial_reason: "concurrency_cap_exceeded",
      reason: expect.stringMatching(/^parked launch abandoned after 8 attempts: /),
    });
    expect(await parkedRow(parked.body.delivery_id)).toBeUndefined();
  });

  it("re-arms a launch the team's launch rate refuses, and launches it once the rate allows", async () => {
    const team = (await seed.admin.post(`/api/orgs/${seed.org.id}/teams`, { name: `rate${pr}`, launch_rate_per_min: 1 })).body;
    const hook = await createHook(team.id);
    const parked = await push(hook, ++pr, "j1", t.clock.now());
    t.clock.advance(QUIET);
    // A member's launch just before the sweep takes the minute's token (a super-admin's passes the gate by).
    await seed.admin.put(`/api/teams/${team.id}/members/${seed.member.id}`, { role: "member" });
    expect((await seed.member.api.post("/api/runs", { team_id: team.id, bot: "review-pr", vars: {} })).status).toBe(201);
    await t.services.parked.sweep();
    expect(await parkedRow(parked.body.delivery_id)).toMatchObject({ attempts: 1, fire_at: t.clock.now() + retryDelayMs(1) });
    expect(await row(hook, parked.body.delivery_id)).toMatchObject({ status: "accepted" });
    for (let attempt = 1; (await row(hook, parked.body.delivery_id)).status === "accepted"; attempt++) {
      expect(attempt).toBeLessThan(MAX_ATTEMPTS);
      t.clock.advance(retryDelayMs(attempt));
      await t.services.parked.sweep();
    }
    expect(await row(hook, parked.body.delivery_id)).toMatchObject({ status: "launched" });
  });

  it("leaves a launch that failed to the next sweep after its lease, without counting an attempt", async () => {
    const hook = await createHook();
    const parked = await push(hook, ++pr, "k1", t.clock.now());
    t.clock.advance(QUIET);
    const failing = vi.spyOn(t.services.launcher, "launch").mockRejectedValueOnce(new Error("store went away"));
    try {
      expect(await t.services.parked.sweep()).toBe(1);
    } finally {
      failing.mockRestore();
    }
    expect(await row(hook, parked.body.delivery_id)).toMatchObject({ status: "accepted" });
    expect(await parkedRow(parked.body.delivery_id)).toMatchObject({ attempts: 0, lease_until: t.clock.now() + MINUTE });
    expect(await t.services.parked.sweep()).toBe(0);
    t.clock.advance(MINUTE);
    expect(await t.services.parked.sweep()).toBe(1);
    expect(await row(hook, parked.body.delivery_id)).toMatchObject({ status: "launched" });
  });

  it.each([
    ["run quota", { monthly_run_quota: 1 }, "monthly_run_quota_exceeded"],
    ["cost cap", { monthly_cost_cap_usd: 1 }, "monthly_cost_cap_exceeded"],
  ] as const)("abandons at once a launch the month's %s refuses", async (_, orgBody, denial) => {
    const org = (await seed.admin.post("/api/admin/orgs", { name: `month${pr}`, ...orgBody })).body;
    const team = (await seed.admin.post(`/api/orgs/${org.id}/teams`, { name: "q" })).body;
    if ("monthly_run_quota" in orgBody) expect((await seed.admin.post("/api/runs", { team_id: team.id, bot: "review-pr", vars: {} })).status).toBe(201);
    else {
      await t.store.db
        .insertInto("org_usage")
        .values({
          org_id: org.id,
          month: monthOf(t.clock.now()),
          cost_micro: 1_000_000,
          input_tokens: 0,
          output_tokens: 0,
          aggregate_tokens: 0,
          updated_at: t.clock.now(),
        })
        .execute();
    }
    const hook = await createHook(team.id);
    const parked = await push(hook, ++pr, "g1", t.clock.now());
    t.clock.advance(QUIET);
    await t.services.parked.sweep();
    expect(await row(hook, parked.body.delivery_id)).toMatchObject({
      status: "launch_error",
      denial_reason: denial,
      reason: expect.stringMatching(/^parked launch abandoned: /),
    });
    expect(await parkedRow(parked.body.delivery_id)).toBeUndefined();
  });

  it("launches nothing for a parked launch whose row a newer push or a close settled while it was being swept", async () => {
    const hook = await createHook();
    const parked = await push(hook, ++pr, "i1", t.clock.now());
    // The state a sweep meets when the row is settled between its claim and its launch.
    await t.store.db.updateTable("webhook_deliveries").set({ status: "filtered" }).where("id", "=", parked.body.delivery_id).execute();
    t.clock.advance(QUIET);
    expect(await t.services.parked.sweep()).toBe(1);
    expect(await runsOf(parked.body.delivery_id)).toEqual([]);
    expect(await parkedRow(parked.body.delivery_id)).toBeUndefined();
  });

  it("launches a parked push once when two replicas sweep at the same moment", async () => {
    const hook = await createHook();
    const parked = await push(hook, ++pr, "h1", t.clock.now());
    const replica = new ParkedLaunches({
      store: t.store,
      clock: t.clock,
      ids: randomIds,
      launcher: t.services.launcher,
      targets: t.services.targets,
      overlap: new OverlapStep({ store: t.store }),
      runs: t.services.runQueue,
      metrics: t.services.metrics,
      log: pino({ level: "silent" }),
      quietMs: QUIET,
      maxWaitMs: MAX_WAIT,
    });
    t.clock.advance(QUIET);
    const taken = await Promise.all([t.services.parked.sweep(), replica.sweep()]);
    expect(taken[0] + taken[1]).toBe(1);
    expect(await runsOf(parked.body.delivery_id)).toHaveLength(1);
  });
});
