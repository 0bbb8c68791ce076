import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Launcher } from "../../admission/launcher.js";
import type { LaunchRequest, SurfaceLaunchOptions } from "../../admission/launch-types.js";
import { createLogger } from "../../config/logger.js";
import { BoardDispatcher, MAX_CARD_ATTEMPTS } from "../../surfaces/board-dispatcher.js";
import { freshTeam, seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";

const MINUTE = 60_000;

describe.each(storeKinds())("the board on %s", (kind) => {
  let t: TestApp;
  let s: Seed;

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
  });
  afterAll(() => t.close());

  const freshTeamOf = async (teamBody: Record<string, unknown> = {}, orgBody: Record<string, unknown> = {}) => (await freshTeam(s, teamBody, orgBody)).team;
  const cards = (teamId: string) => `/api/teams/${teamId}/board/cards`;
  const add = (teamId: string, body: Record<string, unknown> = {}) =>
    s.member.api.post(cards(teamId), { title: "Fix the flaky test", bot: "improve", ...body });
  const card = async (teamId: string, id: string) => (await s.member.api.get(`${cards(teamId)}/${id}`)).body;
  const dispatch = () => t.services.boardDispatcher.dispatch();

  it("adds a card to ready; members read and move it; another org's user sees nothing", async () => {
    const team = await freshTeamOf();
    const made = await add(team.id, { body: "It fails on Mondays", labels: ["flaky"], vars: { files: "a.ts" } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      id: expect.stringMatching(/^card_/),
      column: "ready",
      provenance: "created",
      labels: ["flaky"],
      bot: "improve",
      attempts: 0,
      run_id: null,
    });
    expect((await s.member.api.get(`${cards(team.id)}?column=ready`)).body.cards.map((c: { id: string }) => c.id)).toEqual([made.body.id]);
    expect((await s.outsider.api.get(cards(team.id))).status).toBe(404);
    const moved = await s.member.api.post(`${cards(team.id)}/${made.body.id}/move`, { column: "backlog" });
    expect(moved.body).toMatchObject({ column: "backlog", provenance: "moved" });
    expect((await s.member.api.post(`${cards(team.id)}/${made.body.id}/move`, { column: "running" })).status).toBe(400);
    expect((await add(team.id, { bot: "nope" })).body.field).toBe("bot");
    expect((await add(team.id, { title: "  " })).body.field).toBe("title");
  });

  it("launches a ready card through the gate as board-dispatcher, and settles it when its run ends", async () => {
    const team = await freshTeamOf();
    const made = (await add(team.id, { vars: { files: "a.ts" } })).body;
    expect((await dispatch()).get(made.id)).toBe("launched");
    const running = await card(team.id, made.id);
    expect(running).toMatchObject({ column: "running", provenance: "dispatched" });
    const run = await t.store.db.selectFrom("runs").selectAll().where("id", "=", running.run_id).executeTakeFirstOrThrow();
    expect(run).toMatchObject({ source: "board", actor_kind: "board-dispatcher", metered: 1, team_id: team.id });
    expect(JSON.parse(run.vars)).toEqual({ files: "a.ts", card_id: made.id });
    expect((await dispatch()).get(made.id)).toBeUndefined();

    await t.store.db.updateTable("runs").set({ status: "succeeded" }).where("id", "=", run.id).execute();
    await dispatch();
    expect(await card(team.id, made.id)).toMatchObject({ column: "done", provenance: "run_succeeded" });
  });

  it("returns a refused card to ready as launch_refused with a growing wait, and files it blocked as launch_given_up", async () => {
    const team = await freshTeamOf({ max_concurrent_runs: 1 });
    await s.admin.post("/api/runs", { team_id: team.id, bot: "review-pr" });
    const made = (await add(team.id)).body;
    expect((await dispatch()).get(made.id)).toBe("launch_refused");
    const refused = await card(team.id, made.id);
    expect(refused).toMatchObject({ column: "ready", provenance: "launch_refused", attempts: 1 });
    expect(refused.last_error).toMatch(/^concurrency_cap_exceeded: /);
    expect(refused.next_attempt_at).toBe(new Date(t.clock.now() + MINUTE).toISOString());
    expect((await dispatch()).get(made.id)).toBeUndefined();
    for (let i = 2; i <= MAX_CARD_ATTEMPTS; i++) {
      t.clock.advance(2 ** (i - 2) * MINUTE);
      expect((await dispatch()).get(made.id)).toBe(i < MAX_CARD_ATTEMPTS ? "launch_refused" : "launch_given_up");
    }
    expect(await card(team.id, made.id)).toMatchObject({ column: "blocked", provenance: "launch_given_up", attempts: MAX_CARD_ATTEMPTS });
    await t.store.db.updateTable("runs").set({ status: "cancelled" }).where("team_id", "=", team.id).execute();
    const retried = await s.member.api.post(`${cards(team.id)}/${made.id}/retry`);
    expect(retried.body).toMatchObject({ column: "ready", provenance: "retried", attempts: 0 });
    expect((await dispatch()).get(made.id)).toBe("launched");
    expect((await s.member.api.post(`${cards(team.id)}/${made.id}/retry`)).status).toBe(409);
  });

  it("holds a needs:approval card until a team admin approves it", async () => {
    const team = await freshTeamOf();
    const made = (await add(team.id, { labels: ["needs:approval"] })).body;
    expect((await dispatch()).get(made.id)).toBeUndefined();
    expect((await s.member.api.post(`${cards(team.id)}/${made.id}/approve`)).status).toBe(403);
    const approved = await s.teamAdmin.api.post(`${cards(team.id)}/${made.id}/approve`);
    expect(approved.body).toMatchObject({ labels: [], provenance: "approved" });
    expect((await dispatch()).get(made.id)).toBe("launched");
    expect((await s.teamAdmin.api.post(`${cards(team.id)}/${made.id}/approve`)).status).toBe(409);
  });

  it("launches a card once when two replicas dispatch together", async () => {
    const team = await freshTeamOf();
    const made = (await add(team.id)).body;
    const other = new BoardDispatcher({ store: t.store, clock: t.clock, launcher: t.services.launcher, log: createLogger("silent") });
    const [a, b] = await Promise.all([dispatch(), other.dispatch()]);
    expect([a.get(made.id), b.get(made.id)].filter(Boolean)).toEqual(["launched"]);
    expect(await t.store.db.selectFrom("runs").select("id").where("team_id", "=", team.id).execute()).toHaveLength(1);
  });

  it("starts no run for a card a member moves back after its lease, before its launch commits", async () => {
    const team = await freshTeamOf();
    const made = (await add(team.id)).body;
    // The launcher this replica uses, with the member's move landing between the lease and the launch.
    const real = t.services.launcher;
    const launcher = Object.create(real) as Launcher;
    launcher.launch = (async (request: LaunchRequest, options: SurfaceLaunchOptions) => {
      expect((await s.member.api.post(`${cards(team.id)}/${made.id}/move`, { column: "backlog" })).status).toBe(200);
      return real.launch(request, options);
    }) as Launcher["launch"];
    const replica = new BoardDispatcher({ store: t.store, clock: t.clock, launcher, log: createLogger("silent") });
    expect((await replica.dispatch()).get(made.id)).toBe("taken");
    expect(await t.store.db.selectFrom("runs").select("id").where("team_id", "=", team.id).execute()).toEqual([]);
    expect(await card(team.id, made.id)).toMatchObject({ column: "backlog", provenance: "moved", run_id: null, attempts: 0, last_error: null });
  });
});
