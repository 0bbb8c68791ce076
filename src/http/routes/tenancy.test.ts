import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";

describe.each(storeKinds())("tenancy API on %s", (kind) => {
  let t: TestApp;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;

  beforeAll(async () => {
    t = await startTestApp(kind);
    seed = await seedTenancy(t);
  });
  afterAll(() => t.close());

  it("creates orgs with their limit fields and the spec's statuses", async () => {
    const r = await seed.admin.post("/api/admin/orgs", {
      name: "Globex",
      monthly_cost_cap_usd: 12.5,
      monthly_run_quota: 100,
      memory_quota_bytes: 1024,
      credential_audience: "none",
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: "Globex", status: "active", monthly_cost_cap_usd: 12.5, monthly_run_quota: 100, credential_audience: "none" });
    expect(r.body.id).toMatch(/^org_/);
    const patched = await seed.admin.patch(`/api/admin/orgs/${r.body.id}`, { status: "read-only" });
    expect(patched.body.status).toBe("read-only");
    const bad = await seed.admin.patch(`/api/admin/orgs/${r.body.id}`, { status: "paused" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: "invalid_request", field: "status" });
    const list = await seed.admin.get("/api/admin/orgs");
    expect(list.body.orgs.map((o: { id: string }) => o.id)).toContain(r.body.id);
  });

  it("refuses unknown fields by name", async () => {
    const r = await seed.admin.post("/api/admin/orgs", { name: "X", colour: "red" });
    expect(r.status).toBe(400);
    expect(r.body.field).toBe("colour");
  });

  it("lets each team's users see their own team and not the other", async () => {
    const seen = async (api: typeof seed.member.api, teamId: string) => {
      const r = await api.get(`/api/teams/${teamId}`);
      return [r.status, r.status === 200 ? r.body.id : r.body];
    };
    const hidden = [404, { error: "not_found", detail: "team not found", request_id: expect.any(String) }];
    expect(await seen(seed.member.api, seed.team.id)).toEqual([200, seed.team.id]);
    expect(await seen(seed.member.api, seed.otherTeam.id)).toEqual(hidden);
    expect(await seen(seed.outsider.api, seed.otherTeam.id)).toEqual([200, seed.otherTeam.id]);
    expect(await seen(seed.outsider.api, seed.team.id)).toEqual(hidden);
    expect(await seen(seed.orgAdmin.api, seed.otherTeam.id)).toEqual([200, seed.otherTeam.id]);
    // A team nobody can see and a team that does not exist answer alike.
    expect(await seen(seed.member.api, "tm_missing")).toEqual(hidden);
  });

  it("lists teams by role: org admins all, members their own", async () => {
    const mine = await seed.member.api.get(`/api/orgs/${seed.org.id}/teams`);
    expect(mine.body.teams.map((x: { id: string }) => x.id)).toEqual([seed.team.id]);
    const all = await seed.orgAdmin.api.get(`/api/orgs/${seed.org.id}/teams`);
    expect(all.body.teams).toHaveLength(2);
  });

  it("reserves team limits to org admins; team admins get 403, members 403", async () => {
    const body = { max_concurrent_runs: 3, launch_rate_per_min: 30 };
    expect((await seed.member.api.patch(`/api/teams/${seed.team.id}`, body)).status).toBe(403);
    expect((await seed.teamAdmin.api.patch(`/api/teams/${seed.team.id}`, body)).status).toBe(403);
    const ok = await seed.orgAdmin.api.patch(`/api/teams/${seed.team.id}`, body);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject(body);
  });

  it("lets a team admin manage members of the org, and a member not", async () => {
    const u = (await seed.admin.post("/api/admin/users", { login: "newbie" })).body;
    expect((await seed.orgAdmin.api.put(`/api/orgs/${seed.org.id}/members/${u.id}`, { role: "member" })).status).toBe(200);
    expect((await seed.member.api.put(`/api/teams/${seed.team.id}/members/${u.id}`, { role: "member" })).status).toBe(403);
    const added = await seed.teamAdmin.api.put(`/api/teams/${seed.team.id}/members/${u.id}`, { role: "member" });
    expect([added.status, added.body]).toEqual([200, { team_id: seed.team.id, user_id: u.id, role: "member" }]);
    expect((await seed.teamAdmin.api.delete(`/api/teams/${seed.team.id}/members/${u.id}`)).status).toBe(204);
    expect((await seed.teamAdmin.api.delete(`/api/teams/${seed.team.id}/members/${u.id}`)).status).toBe(404);
  });

  it("keeps super-admin routes to super-admins", async () => {
    const refused = { error: "forbidden", detail: "super-admin role required", request_id: expect.any(String) };
    for (const r of [
      await seed.orgAdmin.api.get("/api/admin/orgs"),
      await seed.orgAdmin.api.post("/api/admin/users", { login: "x" }),
      await seed.member.api.patch(`/api/admin/orgs/${seed.org.id}`, { name: "n" }),
    ]) {
      expect([r.status, r.body]).toEqual([403, refused]);
    }
    expect((await seed.admin.get(`/api/admin/orgs/${seed.org.id}`)).body.name).toBe(seed.org.name);
  });

  it("rejects a duplicate login with 409", async () => {
    expect((await seed.admin.post("/api/admin/users", { login: "Member" })).status).toBe(409);
  });

  it("describes the caller with memberships", async () => {
    const me = await seed.teamAdmin.api.get("/api/users/me");
    expect(me.body).toMatchObject({ login: "team-admin", super_admin: false });
    expect(me.body.teams).toEqual([expect.objectContaining({ id: seed.team.id, role: "admin" })]);
  });

  it("mints, lists and revokes personal access tokens; plaintext only once", async () => {
    const made = await seed.member.api.post("/api/users/me/tokens", { name: "ci", expires_in_days: 30 });
    expect(made.status).toBe(201);
    expect(made.body.token).toMatch(/^iap_[A-Za-z0-9_-]{43}$/);
    expect(made.body.last4).toBe(made.body.token.slice(-4));
    const list = await seed.member.api.get("/api/users/me/tokens");
    expect(JSON.stringify(list.body)).not.toContain(made.body.token);
    expect(list.body.tokens.map((x: { id: string }) => x.id)).toContain(made.body.id);
    const fresh = client(t.app, made.body.token);
    expect((await fresh.get("/api/users/me")).status).toBe(200);
    expect((await seed.member.api.delete(`/api/users/me/tokens/${made.body.id}`)).status).toBe(204);
    expect((await fresh.get("/api/users/me")).status).toBe(401);
    expect((await seed.outsider.api.delete(`/api/users/me/tokens/${made.body.id}`)).status).toBe(404);
  });

  it("expires tokens on the clock", async () => {
    const made = await seed.member.api.post("/api/users/me/tokens", { name: "short", expires_in_days: 1 });
    const fresh = client(t.app, made.body.token);
    expect((await fresh.get("/api/users/me")).status).toBe(200);
    t.clock.advance(86_400_000 + 1);
    expect((await fresh.get("/api/users/me")).status).toBe(401);
  });

  it("answers 401 for missing, malformed and unknown tokens", async () => {
    expect((await client(t.app).get("/api/users/me")).status).toBe(401);
    expect((await client(t.app, "iap_nope").get("/api/users/me")).status).toBe(401);
    const r = await t.app.inject({ method: "GET", url: "/api/users/me", headers: { authorization: "Basic abc" } });
    expect(r.statusCode).toBe(401);
    expect(JSON.parse(r.body)).toMatchObject({ error: "unauthenticated" });
  });

  it("stores no token plaintext anywhere", async () => {
    const made = await seed.member.api.post("/api/users/me/tokens", { name: "scan" });
    const tables = ["access_tokens", "audit_log", "users"] as const;
    for (const table of tables) {
      const rows = await t.store.db.selectFrom(table).selectAll().execute();
      const dump = JSON.stringify(rows);
      expect(dump).not.toContain(made.body.token);
      expect(dump).not.toContain(t.adminToken);
    }
    expect(t.logs.join("")).not.toContain(made.body.token);
  });

  it("writes an audit row for each mutation", async () => {
    const rows = await t.store.db.selectFrom("audit_log").select(["action"]).execute();
    const actions = new Set(rows.map((r) => r.action));
    for (const a of ["org.create", "team.create", "user.create", "token.create", "team.member.put", "org.member.put"]) {
      expect(actions).toContain(a);
    }
  });
});
