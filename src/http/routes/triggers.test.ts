import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Launcher } from "../../admission/launcher.js";
import { freshTeam, seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";

describe.each(storeKinds())("custom-event triggers on %s", (kind) => {
  let t: TestApp;
  let s: Seed;

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
  });
  afterAll(() => t.close());

  const freshTeamOf = async (teamBody: Record<string, unknown> = {}, orgBody: Record<string, unknown> = {}) => (await freshTeam(s, teamBody, orgBody)).team;
  const subscribe = (teamId: string, body: Record<string, unknown> = {}) =>
    s.teamAdmin.api.post("/api/v1/triggers", { team_id: teamId, name: `sub ${Math.random()}`, event: "deploy.finished", bot: "review-pr", ...body });
  const emit = (teamId: string, body: Record<string, unknown> = {}) =>
    s.member.api.post("/api/v1/triggers/emit", { team_id: teamId, event: "deploy.finished", payload: { env: "prod", build: { number: 7 } }, ...body });
  const runsOf = (teamId: string) => t.store.db.selectFrom("runs").selectAll().where("team_id", "=", teamId).orderBy("created_at").execute();

  it("lists a team's subscriptions under /api/v1/triggers; members read, team admins write", async () => {
    const team = await freshTeamOf();
    const made = await subscribe(team.id, { filter: { env: "prod" }, vars: { ENV: "{{payload.env}}" } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      id: expect.stringMatching(/^trg_/),
      team_id: team.id,
      event: "deploy.finished",
      filter: { env: "prod" },
      vars: { ENV: "{{payload.env}}" },
      enabled: true,
      last_error: null,
      last_error_at: null,
      last_run_id: null,
    });
    expect((await s.member.api.get(`/api/v1/triggers?team_id=${team.id}`)).body.triggers.map((x: { id: string }) => x.id)).toEqual([made.body.id]);
    expect((await s.member.api.post("/api/v1/triggers", { team_id: team.id, name: "x", event: "e", bot: "review-pr" })).status).toBe(403);
    expect((await s.outsider.api.get(`/api/v1/triggers?team_id=${team.id}`)).status).toBe(404);
    expect((await s.outsider.api.get(`/api/v1/triggers/${made.body.id}`)).status).toBe(404);
    const patched = await s.teamAdmin.api.patch(`/api/v1/triggers/${made.body.id}`, { filter: { env: "staging" }, enabled: false });
    expect(patched.body).toMatchObject({ filter: { env: "staging" }, enabled: false });
    expect((await s.teamAdmin.api.delete(`/api/v1/triggers/${made.body.id}`)).status).toBe(204);
    expect((await s.member.api.get(`/api/v1/triggers/${made.body.id}`)).status).toBe(404);
  });

  it.each([
    ["a filter value that is an object", { filter: { env: { a: 1 } } }, "filter.env"],
    ["a filter path with spaces", { filter: { "a b": "x" } }, "filter.a b"],
    ["an unknown bot", { bot: "nope" }, "bot"],
    ["an event with a control character", { event: "a\u0007b" }, "event"],
  ])("refuses %s with 400", async (_label, body, field) => {
    const r = await subscribe(s.team.id, body);
    expect(r.status).toBe(400);
    expect(r.body.field).toBe(field);
  });

  it("fans one event out to the matching subscriptions, with their filled vars, under the trigger-spine identity", async () => {
    const team = await freshTeamOf();
    const prod = (await subscribe(team.id, { filter: { env: "prod" }, vars: { ENV: "{{payload.env}}", BUILD: "#{{payload.build.number}}" } })).body;
    const any = (await subscribe(team.id, {})).body;
    await subscribe(team.id, { filter: { env: "staging" } });
    await subscribe(team.id, { event: "other.event" });
    await subscribe(team.id, { enabled: false });
    const r = await emit(team.id);
    expect(r.status).toBe(200);
    expect(r.body.event).toBe("deploy.finished");
    expect(r.body.launches.map((l: { subscription_id: string; status: string }) => [l.subscription_id, l.status]).sort()).toEqual(
      [
        [prod.id, "launched"],
        [any.id, "launched"],
      ].sort(),
    );
    const runs = await runsOf(team.id);
    expect(runs).toHaveLength(2);
    expect(runs.every((run) => run.source === "trigger" && run.actor_kind === "trigger-spine" && run.actor_user_id === s.member.id && run.metered === 1)).toBe(
      true,
    );
    const prodRun = runs.find((run) => run.id === r.body.launches.find((l: { subscription_id: string }) => l.subscription_id === prod.id).run_id);
    expect(JSON.parse(prodRun!.vars)).toEqual({ ENV: "prod", BUILD: "#7" });
    expect((await s.member.api.get(`/api/v1/triggers/${prod.id}`)).body).toMatchObject({ last_run_id: prodRun!.id, last_error: null });
  });

  it("launches nothing twice for an emit retried with its idempotency key", async () => {
    const team = await freshTeamOf();
    const sub = (await subscribe(team.id)).body;
    const first = await emit(team.id, { idempotency_key: "ci-build-7" });
    const again = await emit(team.id, { idempotency_key: "ci-build-7" });
    const racing = await Promise.all([emit(team.id, { idempotency_key: "ci-build-8" }), emit(team.id, { idempotency_key: "ci-build-8" })]);
    expect(first.body.launches).toEqual([{ subscription_id: sub.id, status: "launched", run_id: expect.any(String) }]);
    expect(again.body.launches).toEqual([{ subscription_id: sub.id, status: "duplicate", run_id: first.body.launches[0].run_id }]);
    expect(racing.map((r) => r.body.launches[0].status).sort()).toEqual(["duplicate", "launched"]);
    expect(await runsOf(team.id)).toHaveLength(2);
    // Without a key every emit launches.
    await emit(team.id);
    expect(await runsOf(team.id)).toHaveLength(3);
  });

  it("launches a subscription once for two emits with the same key at once, both past their key check: the other answers the winner's run", async () => {
    const team = await freshTeamOf();
    const sub = (await subscribe(team.id)).body;
    // The real launcher, holding each launch until both emits have looked for the key and found it free.
    const launcher = t.services.launcher;
    const launch = launcher.launch.bind(launcher) as (...args: unknown[]) => Promise<unknown>;
    let arrived = 0;
    let both!: () => void;
    const together = new Promise<void>((resolve) => (both = resolve));
    launcher.launch = (async (...args: unknown[]) => {
      if (++arrived === 2) both();
      await together;
      return launch(...args);
    }) as Launcher["launch"];
    try {
      const answers = await Promise.all([emit(team.id, { idempotency_key: "race-1" }), emit(team.id, { idempotency_key: "race-1" })]);
      const launches = answers.map((r) => r.body.launches[0] as { status: string; run_id: string });
      expect(arrived).toBe(2);
      expect(launches.map((l) => l.status).sort()).toEqual(["duplicate", "launched"]);
      const won = launches.find((l) => l.status === "launched")!;
      expect(launches.find((l) => l.status === "duplicate")).toEqual({ subscription_id: sub.id, status: "duplicate", run_id: won.run_id });
      expect((await runsOf(team.id)).map((r) => r.id)).toEqual([won.run_id]);
      expect((await s.member.api.get(`/api/v1/triggers/${sub.id}`)).body).toMatchObject({ last_run_id: won.run_id, last_error: null });
    } finally {
      delete (launcher as Partial<Launcher>).launch;
    }
  });

  it("answers the pre-check's denial for the whole emit, launching nothing", async () => {
    const team = await freshTeamOf({}, { status: "suspended" });
    await subscribe(team.id);
    const r = await emit(team.id);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: "org_suspended", detail: expect.any(String) });
    expect(await runsOf(team.id)).toEqual([]);
  });

  it("gates and meters the spine's launches whoever emitted: a super-admin's emit passes no bypass to them", async () => {
    const { org, team } = await freshTeam(s, {}, { monthly_run_quota: 2 });
    for (let i = 0; i < 3; i++) await subscribe(team.id);
    const r = await s.admin.post("/api/v1/triggers/emit", { team_id: team.id, event: "deploy.finished", payload: {} });
    expect(r.status).toBe(200);
    const statuses = r.body.launches.map((l: { status: string; error?: string }) => `${l.status}${l.error ? `:${l.error}` : ""}`).sort();
    expect(statuses).toEqual(["denied:monthly_run_quota_exceeded", "launched", "launched"]);
    const runs = await runsOf(team.id);
    expect(runs).toHaveLength(2);
    expect(runs.every((run) => run.actor_kind === "trigger-spine" && run.metered === 1)).toBe(true);
    expect((await s.admin.get(`/api/admin/orgs/${org.id}/usage`)).body.runs_this_month).toBe(2);
    // The quota spent, the pre-check refuses the super-admin's next emit as it would anyone's.
    const again = await s.admin.post("/api/v1/triggers/emit", { team_id: team.id, event: "deploy.finished", payload: {} });
    expect(again.status).toBe(402);
    expect(again.body.error).toBe("monthly_run_quota_exceeded");
    expect(await runsOf(team.id)).toHaveLength(2);
  });

  it("records a launch the gate refuses as the subscription's last_error, cleared by its next launch", async () => {
    const team = await freshTeamOf({ max_concurrent_runs: 1 });
    const first = (await subscribe(team.id)).body;
    const second = (await subscribe(team.id)).body;
    const r = await emit(team.id);
    const statuses = Object.fromEntries(r.body.launches.map((l: { subscription_id: string; status: string }) => [l.subscription_id, l.status]));
    expect(Object.values(statuses).sort()).toEqual(["denied", "launched"]);
    const refusedId = statuses[first.id] === "denied" ? first.id : second.id;
    const refused = (await s.member.api.get(`/api/v1/triggers/${refusedId}`)).body;
    expect(refused.last_error).toMatch(/^concurrency_cap_exceeded: /);
    expect(refused.last_error_at).toBe(new Date(t.clock.now()).toISOString());

    await t.store.db.updateTable("runs").set({ status: "cancelled" }).where("team_id", "=", team.id).execute();
    await s.teamAdmin.api.patch(`/api/v1/triggers/${refusedId === first.id ? second.id : first.id}`, { enabled: false });
    expect((await emit(team.id)).body.launches).toEqual([{ subscription_id: refusedId, status: "launched", run_id: expect.any(String) }]);
    expect((await s.member.api.get(`/api/v1/triggers/${refusedId}`)).body).toMatchObject({ last_error: null, last_error_at: null });
  });

  it("records vars a template fills past their limits as last_error, and launches the other subscriptions", async () => {
    const team = await freshTeamOf();
    const big = (await subscribe(team.id, { vars: { BODY: "{{payload.blob}}" } })).body;
    const fine = (await subscribe(team.id)).body;
    const r = await emit(team.id, { payload: { blob: "x".repeat(5000) } });
    const byId = Object.fromEntries(r.body.launches.map((l: { subscription_id: string }) => [l.subscription_id, l]));
    expect(byId[big.id]).toMatchObject({ status: "failed", error: "invalid_request" });
    expect(byId[fine.id]).toMatchObject({ status: "launched" });
    expect((await s.member.api.get(`/api/v1/triggers/${big.id}`)).body.last_error).toMatch(/4 KiB/);
  });
});
