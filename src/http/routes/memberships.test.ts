import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";

/** Who may join a team, what leaving an org ends, and deactivated users. */
describe.each(storeKinds())("memberships on %s", (kind) => {
  let t: TestApp;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;
  const newUser = async (login: string) => {
    const u = (await seed.admin.post("/api/admin/users", { login })).body;
    const token = (await seed.admin.post(`/api/admin/users/${u.id}/tokens`, { name: "t" })).body.token as string;
    return { id: u.id as string, token, api: client(t.app, token) };
  };

  beforeAll(async () => {
    t = await startTestApp(kind);
    seed = await seedTenancy(t);
  });
  afterAll(() => t.close());

  it("ends every access through the org when a user leaves it: team routes, runs and the org's reads", async () => {
    const u = await newUser("leaver");
    expect((await seed.orgAdmin.api.put(`/api/teams/${seed.team.id}/members/${u.id}`, { role: "admin" })).status).toBe(200);
    expect((await u.api.post(`/api/teams/${seed.team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] })).status).toBe(201);
    const me = (await u.api.get("/api/users/me")).body;
    expect([me.orgs.map((o: { id: string }) => o.id), me.teams.map((x: { id: string }) => x.id)]).toEqual([[seed.org.id], [seed.team.id]]);
    const reads = [`/api/teams/${seed.team.id}`, `/api/teams/${seed.team.id}/webhooks`, `/api/orgs/${seed.org.id}/teams`, `/api/orgs/${seed.org.id}/usage`];
    for (const path of reads) expect((await u.api.get(path)).status, path).toBe(200);

    expect((await seed.orgAdmin.api.delete(`/api/orgs/${seed.org.id}/members/${u.id}`)).status).toBe(204);
    const hook = await u.api.post(`/api/teams/${seed.team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] });
    expect([hook.status, hook.body.error]).toEqual([404, "not_found"]);
    const run = await u.api.post("/api/runs", { team_id: seed.team.id, bot: "review-pr", vars: {} });
    expect([run.status, run.body.error]).toEqual([404, "not_found"]);
    for (const path of reads) expect((await u.api.get(path)).status, path).toBe(404);
    expect((await u.api.get("/api/users/me")).body).toMatchObject({ orgs: [], teams: [] });
    // Removing again finds nothing.
    expect((await seed.orgAdmin.api.delete(`/api/orgs/${seed.org.id}/members/${u.id}`)).status).toBe(404);
  });

  it("keeps team admins from adding anyone outside the org, with one answer whether the user exists or not", async () => {
    const stranger = await newUser("stranger");
    const orgB = (await seed.admin.post("/api/admin/orgs", { name: "Other org" })).body;
    const elsewhere = await newUser("elsewhere");
    await seed.admin.put(`/api/orgs/${orgB.id}/members/${elsewhere.id}`, { role: "admin" });
    const answers = [];
    for (const id of [stranger.id, elsewhere.id, "usr_does_not_exist"]) {
      const r = await seed.teamAdmin.api.put(`/api/teams/${seed.team.id}/members/${id}`, { role: "member" });
      answers.push([r.status, r.body]);
    }
    expect(answers).toEqual(Array(3).fill([404, { error: "not_found", detail: "no such user in this org", request_id: expect.any(String) }]));
    // Nothing was granted: the stranger still reads nothing of the org.
    expect((await stranger.api.get(`/api/orgs/${seed.org.id}/teams`)).status).toBe(404);
    expect((await stranger.api.get(`/api/teams/${seed.team.id}`)).status).toBe(404);
  });

  it("lets an org admin add a user to a team, which makes them an org member", async () => {
    const u = await newUser("joiner");
    expect((await seed.orgAdmin.api.put(`/api/teams/${seed.otherTeam.id}/members/${u.id}`, { role: "member" })).status).toBe(200);
    expect((await u.api.get("/api/users/me")).body.orgs).toEqual([{ id: seed.org.id, name: seed.org.name, role: "member" }]);
    expect((await u.api.get(`/api/teams/${seed.otherTeam.id}`)).body.id).toBe(seed.otherTeam.id);
  });

  it("deactivates a user (super-admin only): every token 401 at once, revoked; reactivation needs a new token", async () => {
    const u = await newUser("departing");
    await seed.orgAdmin.api.put(`/api/teams/${seed.team.id}/members/${u.id}`, { role: "member" });
    const second = (await u.api.post("/api/users/me/tokens", { name: "second" })).body.token as string;
    expect((await seed.orgAdmin.api.patch(`/api/admin/users/${u.id}`, { active: false })).status).toBe(403);
    const off = await seed.admin.patch(`/api/admin/users/${u.id}`, { active: false });
    expect([off.status, off.body.active, off.body.id]).toEqual([200, false, u.id]);
    for (const token of [u.token, second]) {
      const r = await client(t.app, token).get("/api/users/me");
      expect([r.status, r.body.error]).toEqual([401, "unauthenticated"]);
    }
    const on = await seed.admin.patch(`/api/admin/users/${u.id}`, { active: true });
    expect(on.body.active).toBe(true);
    expect((await u.api.get("/api/users/me")).status).toBe(401);
    const fresh = (await seed.admin.post(`/api/admin/users/${u.id}/tokens`, { name: "again" })).body.token as string;
    expect((await client(t.app, fresh).get(`/api/teams/${seed.team.id}`)).status).toBe(200);
    expect((await seed.admin.patch(`/api/admin/users/usr_nope`, { active: false })).status).toBe(404);
  });

  it("refuses a super-admin deactivating themselves", async () => {
    const me = (await seed.admin.get("/api/users/me")).body;
    const r = await seed.admin.patch(`/api/admin/users/${me.id}`, { active: false });
    expect([r.status, r.body.error]).toEqual([409, "conflict"]);
  });
});
