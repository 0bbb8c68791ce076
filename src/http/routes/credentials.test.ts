import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, seedTenancy, startTestApp, storeKinds, type Client, type Reply, type TestApp } from "../../test-support/harness.js";

const SECRET = "sk-ant-api03-PLAINTEXT-never-shown-0000";

/** A member's listing holds this team's records only, values never. */
function expectRecordsWithoutValues(body: unknown, name: string): void {
  for (const item of Object.values(body as Record<string, { id: string; value?: string; secret?: string }[]>)[0]!) {
    expect(item.id, name).toMatch(/^(key|sec)_/);
    expect(item.value ?? item.secret, name).toBeUndefined();
  }
}

describe.each(storeKinds())("stored credentials API on %s", (kind) => {
  let t: TestApp;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;
  let stranger: Client;
  const seen: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(kind);
    const inject = t.app.inject.bind(t.app);
    t.app.inject = (async (opts: unknown) => {
      const res = await inject(opts as never);
      seen.push(res.body);
      return res;
    }) as never;
    seed = await seedTenancy(t);
    const org2 = (await seed.admin.post("/api/admin/orgs", { name: "Globex" })).body;
    const team2 = (await seed.admin.post(`/api/orgs/${org2.id}/teams`, { name: "G" })).body;
    const u = (await seed.admin.post("/api/admin/users", { login: "stranger" })).body;
    await seed.admin.put(`/api/teams/${team2.id}/members/${u.id}`, { role: "admin" });
    stranger = client(t.app, (await seed.admin.post(`/api/admin/users/${u.id}/tokens`, { name: "t" })).body.token);
  });
  afterAll(() => t.close());

  const teamKeys = () => `/api/teams/${seed.team.id}/keys`;
  const orgKeys = () => `/api/orgs/${seed.org.id}/keys`;
  const secrets = () => `/api/teams/${seed.team.id}/secrets`;

  it("stores a team key sealed and lists metadata only", async () => {
    const r = await seed.teamAdmin.api.post(teamKeys(), { provider: "Anthropic", name: "main", secret: SECRET });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(["created_at", "fingerprint", "id", "last4", "name", "provider"]);
    expect(r.body).toMatchObject({ provider: "anthropic", name: "main", last4: "0000" });
    expect(r.body.id).toMatch(/^key_/);
    expect(r.body.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    const list = await seed.member.api.get(teamKeys());
    expect(list.body.keys).toEqual([r.body]);
    const row = await t.store.db.selectFrom("api_keys").selectAll().where("id", "=", r.body.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(SECRET);
    const opened = await t.services.credentials.openKey(r.body.id, seed.team.id);
    expect(opened).toMatchObject({ id: r.body.id, provider: "anthropic", secret: SECRET });
    expect(await t.services.credentials.openKey(r.body.id, seed.otherTeam.id)).toBeUndefined();
    expect(await t.services.credentials.openKey("key_missing", seed.team.id)).toBeUndefined();
  });

  it("keeps a sealed key bound to its own id", async () => {
    const a = (await seed.teamAdmin.api.post(teamKeys(), { provider: "openai", name: "a", secret: "sk-aaaaaaaaaaaaaaaaaaaa" })).body;
    const b = (await seed.teamAdmin.api.post(teamKeys(), { provider: "openai", name: "b", secret: "sk-bbbbbbbbbbbbbbbbbbbb" })).body;
    const rowA = await t.store.db.selectFrom("api_keys").selectAll().where("id", "=", a.id).executeTakeFirstOrThrow();
    await t.store.db.updateTable("api_keys").set({ sealed_blob: rowA.sealed_blob }).where("id", "=", b.id).execute();
    await expect(t.services.credentials.openKey(b.id, seed.team.id)).rejects.toThrow(/does not open/);
  });

  it("shares org keys with the teams of the credential audience", async () => {
    const k = (await seed.orgAdmin.api.post(orgKeys(), { provider: "openai", name: "shared", secret: "sk-org-0123456789abcdef" })).body;
    expect((await seed.member.api.get(orgKeys())).body.keys.map((x: { id: string }) => x.id)).toContain(k.id);
    expect((await t.services.credentials.openKey(k.id, seed.team.id))?.secret).toBe("sk-org-0123456789abcdef");
    await seed.admin.patch(`/api/admin/orgs/${seed.org.id}`, { credential_audience: [seed.otherTeam.id] });
    expect(await t.services.credentials.openKey(k.id, seed.team.id)).toBeUndefined();
    expect((await t.services.credentials.openKey(k.id, seed.otherTeam.id))?.secret).toBe("sk-org-0123456789abcdef");
    await seed.admin.patch(`/api/admin/orgs/${seed.org.id}`, { credential_audience: "all" });
  });

  it("stores workflow secrets under unique names", async () => {
    const r = await seed.teamAdmin.api.post(secrets(), { name: "NPM_TOKEN", value: "npm_secret_value_0123" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: "NPM_TOKEN", last4: "0123" });
    expect(Object.keys(r.body).sort()).toEqual(["created_at", "fingerprint", "id", "last4", "name"]);
    expect((await seed.teamAdmin.api.post(secrets(), { name: "NPM_TOKEN", value: "other" })).status).toBe(409);
    expect((await seed.teamAdmin.api.post(secrets(), { name: "bad-name", value: "x" })).body.field).toBe("name");
    const nul = await seed.teamAdmin.api.post(secrets(), { name: "WITH_NUL", value: "a\u0000b" });
    expect(nul).toMatchObject({ status: 400, body: { field: "value", detail: "value contains a NUL character" } });
    expect((await seed.teamAdmin.api.post(teamKeys(), { provider: "openai", name: "nul", secret: "sk-\u0000" })).body).toMatchObject({ field: "secret" });
    const short = await seed.teamAdmin.api.post(secrets(), { name: "PIN", value: "1234" });
    expect(short.body.last4).toBe("");
    expect((await t.services.credentials.openSecret(r.body.id, seed.team.id))?.value).toBe("npm_secret_value_0123");
    expect(await t.services.credentials.openSecret(r.body.id, seed.otherTeam.id)).toBeUndefined();
  });

  it("validates key input", async () => {
    expect((await seed.teamAdmin.api.post(teamKeys(), { provider: "open ai", name: "x", secret: "s" })).body.field).toBe("provider");
    expect((await seed.teamAdmin.api.post(teamKeys(), { provider: "openai", name: " ", secret: "s" })).body.field).toBe("name");
    expect((await seed.teamAdmin.api.post(teamKeys(), { provider: "openai", name: "x" })).body.field).toBe("secret");
    expect((await seed.teamAdmin.api.post(teamKeys(), { provider: "openai", name: "x", secret: "s", extra: 1 })).body.field).toBe("extra");
  });

  it("authorises team key and secret routes by role", async () => {
    type Route = { name: string; write: boolean; call: (api: Client) => Promise<Reply> };
    const freshKey = async () => (await seed.teamAdmin.api.post(teamKeys(), { provider: "openai", name: "k", secret: "sk-xxxxxxxxxxxxxxxxxxxx" })).body.id;
    const freshSecret = async () => (await seed.teamAdmin.api.post(secrets(), { name: `S_${Math.random().toString(36).slice(2)}`, value: "v" })).body.id;
    const routes: Route[] = [
      { name: "list keys", write: false, call: (api) => api.get(teamKeys()) },
      { name: "create key", write: true, call: (api) => api.post(teamKeys(), { provider: "openai", name: "k", secret: "s" }) },
      { name: "delete key", write: true, call: async (api) => api.delete(`${teamKeys()}/${await freshKey()}`) },
      { name: "list secrets", write: false, call: (api) => api.get(secrets()) },
      { name: "create secret", write: true, call: (api) => api.post(secrets(), { name: `S_${Math.random().toString(36).slice(2)}`, value: "v" }) },
      { name: "delete secret", write: true, call: async (api) => api.delete(`${secrets()}/${await freshSecret()}`) },
    ];
    const ok = (s: number) => s >= 200 && s < 300;
    for (const r of routes) {
      expect((await r.call(client(t.app))).body.error, `${r.name} anonymous`).toBe("unauthenticated");
      const other = await r.call(seed.outsider.api);
      expect([other.status, other.body], `${r.name} other team`).toEqual([
        404,
        { error: "not_found", detail: "team not found", request_id: expect.any(String) },
      ]);
      const member = await r.call(seed.member.api);
      expect(member.status, `${r.name} member`).toBe(r.write ? 403 : 200);
      if (r.write) expect(member.body, r.name).toEqual({ error: "forbidden", detail: "team admin role required", request_id: expect.any(String) });
      else expectRecordsWithoutValues(member.body, r.name);
      for (const [who, api] of [
        ["team admin", seed.teamAdmin.api],
        ["org admin", seed.orgAdmin.api],
        ["super-admin", seed.admin],
      ] as const) {
        const res = await r.call(api);
        expect(ok(res.status), `${r.name} ${who}: ${res.status}`).toBe(true);
      }
    }
    const theirs = (await seed.outsider.api.post(`/api/teams/${seed.otherTeam.id}/keys`, { provider: "openai", name: "k", secret: "s" })).body.id;
    expect((await seed.teamAdmin.api.delete(`${teamKeys()}/${theirs}`)).status).toBe(404);
    expect((await seed.teamAdmin.api.get(teamKeys())).body.keys.map((k: { id: string }) => k.id)).not.toContain(theirs);
    expect((await seed.outsider.api.get(`/api/teams/${seed.otherTeam.id}/keys`)).body.keys.map((k: { id: string }) => k.id)).toContain(theirs);
  });

  it("authorises org key routes: org admins write, org members read, other orgs 404", async () => {
    const fresh = async () => (await seed.orgAdmin.api.post(orgKeys(), { provider: "openai", name: "k", secret: "s" })).body.id;
    expect((await client(t.app).get(orgKeys())).status).toBe(401);
    expect((await stranger.get(orgKeys())).body).toEqual({ error: "not_found", detail: "org not found", request_id: expect.any(String) });
    expect((await stranger.post(orgKeys(), { provider: "openai", name: "k", secret: "s" })).status).toBe(404);
    const listed = await seed.member.api.get(orgKeys());
    expect(listed.status).toBe(200);
    const orgKeyIds = listed.body.keys.map((k: { id: string }) => k.id);
    expect(orgKeyIds.length).toBeGreaterThan(0);
    for (const k of listed.body.keys) expect(k.secret).toBeUndefined();
    expect((await seed.teamAdmin.api.post(orgKeys(), { provider: "openai", name: "k", secret: "s" })).body).toEqual({
      error: "forbidden",
      detail: "org admin role required",
      request_id: expect.any(String),
    });
    expect((await seed.teamAdmin.api.delete(`${orgKeys()}/${await fresh()}`)).status).toBe(403);
    expect((await seed.orgAdmin.api.delete(`${orgKeys()}/${await fresh()}`)).status).toBe(204);
    expect((await seed.admin.delete(`${orgKeys()}/${await fresh()}`)).status).toBe(204);
    expect((await seed.admin.delete(`${orgKeys()}/key_missing`)).status).toBe(404);
    const teamKey = (await seed.teamAdmin.api.post(teamKeys(), { provider: "openai", name: "k", secret: "s" })).body.id;
    expect((await seed.orgAdmin.api.delete(`${orgKeys()}/${teamKey}`)).status).toBe(404);
  });

  it("audits every mutation and never shows a stored plaintext", async () => {
    const actions = new Set((await t.store.db.selectFrom("audit_log").select("action").execute()).map((r) => r.action));
    for (const a of ["key.create", "key.delete", "secret.create", "secret.delete"]) expect(actions).toContain(a);
    const everything = seen.join("\n") + t.logs.join("\n") + JSON.stringify(await t.store.db.selectFrom("audit_log").selectAll().execute());
    for (const plain of [SECRET, "sk-org-0123456789abcdef", "npm_secret_value_0123"]) expect(everything).not.toContain(plain);
    for (const row of await t.store.db.selectFrom("api_keys").select("sealed_blob").execute()) expect(everything).not.toContain(row.sealed_blob);
  });
});
