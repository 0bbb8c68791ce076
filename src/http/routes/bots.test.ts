import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";

describe.each(storeKinds())("bot catalog API on %s", (kind) => {
  let t: TestApp;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;
  let path: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    seed = await seedTenancy(t);
    path = `/api/orgs/${seed.org.id}/bots`;
  });
  afterAll(() => t.close());

  it("lists the built-ins to org members and registers org bots", async () => {
    const list = await seed.member.api.get(path);
    expect(list.status).toBe(200);
    expect(list.body.bots.map((b: { id: string }) => b.id)).toEqual(["review-pr", "converse", "improve"]);
    const r = await seed.orgAdmin.api.post(path, { id: "triage", name: "Triage", description: "Labels issues" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: "triage", name: "Triage", description: "Labels issues", builtin: false });
    expect((await seed.member.api.get(path)).body.bots.map((b: { id: string }) => b.id)).toContain("triage");
    expect(await t.services.bots.isKnownBot(seed.org.id, "triage")).toBe(true);
    expect(await t.services.bots.isKnownBot(seed.org.id, "review-pr")).toBe(true);
    expect(await t.services.bots.isKnownBot(seed.org.id, "ghost")).toBe(false);
    const org2 = (await seed.admin.post("/api/admin/orgs", { name: "Globex" })).body;
    expect(await t.services.bots.isKnownBot(org2.id, "triage")).toBe(false);
    expect(await t.services.bots.knownBotIds(org2.id)).toEqual(["review-pr", "converse", "improve"]);
  });

  it("refuses bad ids, built-in ids and duplicates", async () => {
    expect((await seed.orgAdmin.api.post(path, { id: "Bad_Id", name: "x" })).body).toMatchObject({ error: "invalid_request", field: "id" });
    expect((await seed.orgAdmin.api.post(path, { id: "review-pr", name: "x" })).status).toBe(409);
    await seed.orgAdmin.api.post(path, { id: "dup", name: "x" });
    expect((await seed.orgAdmin.api.post(path, { id: "dup", name: "x" })).status).toBe(409);
    expect((await seed.orgAdmin.api.delete(`${path}/review-pr`)).status).toBe(409);
    expect((await seed.orgAdmin.api.delete(`${path}/ghost`)).status).toBe(404);
  });

  it("keeps a bot a webhook names", async () => {
    await seed.orgAdmin.api.post(path, { id: "in-use", name: "x" });
    const hook = (await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, { provider: "generic", bot_ids: ["in-use"], default_bot_id: "in-use" }))
      .body.config;
    const r = await seed.orgAdmin.api.delete(`${path}/in-use`);
    expect(r.status).toBe(409);
    expect(r.body.detail).toContain(hook.id);
    await seed.teamAdmin.api.patch(`/api/teams/${seed.team.id}/webhooks/${hook.id}`, { bot_ids: ["review-pr"], default_bot_id: null });
    expect((await seed.orgAdmin.api.delete(`${path}/in-use`)).status).toBe(204);
  });

  it("authorises: anonymous 401, other org 404, members read, org admins write", async () => {
    const org2 = (await seed.admin.post("/api/admin/orgs", { name: "Initech" })).body;
    const team2 = (await seed.admin.post(`/api/orgs/${org2.id}/teams`, { name: "I" })).body;
    const u = (await seed.admin.post("/api/admin/users", { login: "initech-admin" })).body;
    await seed.admin.put(`/api/teams/${team2.id}/members/${u.id}`, { role: "admin" });
    const stranger = client(t.app, (await seed.admin.post(`/api/admin/users/${u.id}/tokens`, { name: "t" })).body.token);
    let n = 0;
    const body = () => ({ id: `b${++n}`, name: "B" });
    const fresh = async () => {
      const id = `d${++n}`;
      await seed.admin.post(path, { id, name: "D" });
      return id;
    };
    expect((await client(t.app).get(path)).status).toBe(401);
    expect((await client(t.app).post(path, body())).status).toBe(401);
    expect((await client(t.app).delete(`${path}/${await fresh()}`)).status).toBe(401);
    expect((await stranger.get(path)).status).toBe(404);
    expect((await stranger.post(path, body())).status).toBe(404);
    expect((await stranger.delete(`${path}/${await fresh()}`)).status).toBe(404);
    for (const api of [seed.member.api, seed.teamAdmin.api]) {
      expect((await api.get(path)).status).toBe(200);
      expect((await api.post(path, body())).status).toBe(403);
      expect((await api.delete(`${path}/${await fresh()}`)).status).toBe(403);
    }
    for (const api of [seed.orgAdmin.api, seed.admin]) {
      expect((await api.get(path)).status).toBe(200);
      expect((await api.post(path, body())).status).toBe(201);
      expect((await api.delete(`${path}/${await fresh()}`)).status).toBe(204);
    }
    const actions = new Set((await t.store.db.selectFrom("audit_log").select("action").where("target_type", "=", "bot").execute()).map((r) => r.action));
    expect(actions).toEqual(new Set(["bot.create", "bot.delete"]));
  });
});
