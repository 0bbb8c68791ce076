import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";
import { FakeGitHub } from "../../test-support/fake-forges/fake-github.js";

const TOKEN = "ghp_CONNECTION-token-never-shown-0123456789";

describe.each(storeKinds())("forge connections API on %s", (kind) => {
  let t: TestApp;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;
  let gh: FakeGitHub;
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
    gh = await FakeGitHub.start();
  });
  afterAll(async () => {
    await gh.server.close();
    await t.close();
  });

  const path = () => `/api/teams/${seed.team.id}/forge/connections`;
  const connect = (body: Record<string, unknown> = {}) =>
    seed.teamAdmin.api.post(path(), { provider: "github", base_url: gh.server.url, token: TOKEN, ...body });

  it("connects with a verified token: the forge's login is the bot identity, the token is sealed and never shown", async () => {
    const r = await connect();
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ provider: "forge_b", base_url: gh.server.url, bot_login: "review-bot", token_last4: "6789", webhook_base_url: null });
    expect(r.body.id).toMatch(/^fcn_/);
    expect(gh.server.requests.at(-1)).toMatchObject({ method: "GET", path: "/api/v3/user" });
    expect(gh.server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const row = await t.store.db.selectFrom("forge_connections").selectAll().where("id", "=", r.body.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(TOKEN);
    expect((await seed.member.api.get(path())).body.connections).toEqual([r.body]);
    expect((await seed.member.api.get(`${path()}/${r.body.id}`)).body).toEqual(r.body);
    expect(seen.join("\n")).not.toContain(TOKEN);
    expect(t.logs.join("\n")).not.toContain(TOKEN);
  });

  it("refuses a token the forge does not accept with 422, and stores nothing", async () => {
    gh.server.fault({ match: /GET \/api\/v3\/user$/, times: 1, status: 401, body: { message: "Bad credentials" } });
    const before = (await seed.member.api.get(path())).body.connections.length;
    const r = await connect({ token: "ghp_wrong" });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ error: "unprocessable" });
    expect((await seed.member.api.get(path())).body.connections).toHaveLength(before);
  });

  it("refuses generic, an unknown provider, a bad base URL and Forgejo without one", async () => {
    expect((await connect({ provider: "generic" })).status).toBe(400);
    expect((await connect({ provider: "svn" })).status).toBe(400);
    expect((await connect({ base_url: "ftp://x" })).status).toBe(400);
    expect((await connect({ provider: "forgejo", base_url: null })).body).toMatchObject({ error: "invalid_request", field: "base_url" });
  });

  it("is for team admins to change and members to read", async () => {
    expect((await seed.member.api.post(path(), { provider: "github", token: TOKEN })).status).toBe(403);
    expect((await seed.outsider.api.get(path())).status).toBe(404);
    const id = (await connect()).body.id;
    expect((await seed.member.api.patch(`${path()}/${id}`, { webhook_base_url: "https://h.example" })).status).toBe(403);
    expect((await seed.member.api.delete(`${path()}/${id}`)).status).toBe(403);
  });

  it("pins the webhook base to scheme plus host: 422 for a path or nonsense, empty clears, plain http warned", async () => {
    const id = (await connect()).body.id;
    const patch = (v: string) => seed.teamAdmin.api.patch(`${path()}/${id}`, { webhook_base_url: v });
    for (const bad of ["https://hooks.example.com/gateway", "not a url", "https://hooks.example.com/?q=1"]) {
      const r = await patch(bad);
      expect(r.status, bad).toBe(422);
      expect(r.body).toMatchObject({ error: "unprocessable", field: "webhook_base_url" });
    }
    expect((await patch("https://hooks.example.com/")).body.webhook_base_url).toBe("https://hooks.example.com");
    expect(t.logs.join("\n")).not.toContain("plain http");
    expect((await patch("http://hooks.example.com")).body.webhook_base_url).toBe("http://hooks.example.com");
    expect(t.logs.join("\n")).toContain("forge webhook base is plain http");
    expect((await patch("")).body.webhook_base_url).toBeNull();
    expect((await seed.teamAdmin.api.post(path(), { provider: "github", base_url: gh.server.url, token: TOKEN, webhook_base_url: "https://h/x" })).status).toBe(
      422,
    );
  });

  it("re-verifies a new token and takes the forge's new login", async () => {
    const id = (await connect()).body.id;
    gh.tokenOwner.login = "other-bot";
    const r = await seed.teamAdmin.api.patch(`${path()}/${id}`, { token: "ghp_replacement-token-wxyz" });
    gh.tokenOwner.login = "review-bot";
    expect(r.body).toMatchObject({ bot_login: "other-bot", token_last4: "wxyz" });
  });

  it("deletes a connection with nothing provisioned", async () => {
    const id = (await connect()).body.id;
    expect((await seed.teamAdmin.api.delete(`${path()}/${id}`)).status).toBe(204);
    expect((await seed.member.api.get(`${path()}/${id}`)).status).toBe(404);
  });
});
