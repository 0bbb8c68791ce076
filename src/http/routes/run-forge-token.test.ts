import { createHmac, generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FakeForgejo } from "../../test-support/fake-forges/fake-forgejo.js";
import { FakeGitHub } from "../../test-support/fake-forges/fake-github.js";
import { FakeGitHubApp } from "../../test-support/fake-forges/fake-github-app.js";
import { FakeGitLab } from "../../test-support/fake-forges/fake-gitlab.js";
import { FakeHooks } from "../../test-support/fake-forges/fake-hooks.js";
import { WORLD } from "../../test-support/fake-forges/world.js";
import { githubLikeComment } from "../../test-support/forge-deliveries.js";
import { seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";

const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
const pem = keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString();

/** Spec "Other routes named": POST /api/runs accepts connection_id; the run is handed BOT_FORGE_TOKEN for its repository alone. */
describe.each(storeKinds())("a run's forge credential on %s", (kind) => {
  let t: TestApp;
  let s: Seed;
  let gh: FakeGitHub;
  let gl: FakeGitLab;
  let fj: FakeForgejo;
  let app: FakeGitHubApp;
  let ghHooks: FakeHooks;
  const conn: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
    [gh, gl, fj] = await Promise.all([FakeGitHub.start(), FakeGitLab.start(), FakeForgejo.start()]);
    ghHooks = FakeHooks.mount(gh.server, "github");
    FakeHooks.mount(gl.server, "gitlab");
    FakeHooks.mount(fj.server, "forgejo");
    app = FakeGitHubApp.mount(gh.server, { id: 7, slug: "acme-review", installationId: 42, publicKey: keys.publicKey, now: () => t.clock.now() });
    const connect = async (name: string, body: Record<string, unknown>) => {
      const r = await s.teamAdmin.api.post(`/api/teams/${s.team.id}/forge/connections`, body);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      conn[name] = r.body.id;
    };
    await connect("github-token", { provider: "github", base_url: gh.server.url, token: "ghp_tokenconnection0001" });
    await connect("github-app", { provider: "github", base_url: gh.server.url, app_id: 7, private_key: pem, installation_id: 42 });
    await connect("gitlab", { provider: "gitlab", base_url: gl.server.url, token: "glpat-connection0001" });
    await connect("forgejo", { provider: "forgejo", base_url: fj.server.url, token: "forgejo-connection0001" });
  });
  afterAll(async () => {
    await Promise.all([gh.server.close(), gl.server.close(), fj.server.close()]);
    await t.close();
  });

  const launch = (body: Record<string, unknown>) => s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr", ...body });
  const rowOf = (id: string) => t.store.db.selectFrom("runs").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  /** The credentials the attempt's spawn is handed, as the runner desk asks for them. */
  const handed = async (runId: string, permissions?: Record<string, "read" | "write">) =>
    t.services.runCredentials.handOver(await rowOf(runId), 1, [], permissions);

  it.each([
    ["github-token", "ghp_tokenconnection0001"],
    ["gitlab", "glpat-connection0001"],
    ["forgejo", "forgejo-connection0001"],
  ])("a token connection (%s) hands its own token in BOT_FORGE_TOKEN, recorded (last four) with the attempt", async (name, token) => {
    const r = await launch({ connection_id: conn[name], project_path: WORLD.repo, repo_url: `https://forge.test/${WORLD.repo}.git` });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.connection_id).toBe(conn[name]);
    const h = await handed(r.body.id);
    expect(h).toEqual({ kind: "handed", env: { BOT_FORGE_TOKEN: token } });
    const recorded = await t.store.db.selectFrom("attempt_credentials").selectAll().where("run_id", "=", r.body.id).execute();
    expect(recorded).toMatchObject([
      { attempt: 1, kind: "secret", name: "BOT_FORGE_TOKEN", credential_id: conn[name], last4: token.slice(-4), source: "connection" },
    ]);
    expect(JSON.stringify(recorded)).not.toContain(token);
  });

  it("a GitHub App connection mints an installation token narrowed to the one repository and the bot's permissions", async () => {
    const r = await launch({ connection_id: conn["github-app"], repo_url: `https://github.test/${WORLD.repo}.git` });
    expect(r.status).toBe(201);
    expect(r.body.project_path).toBe(WORLD.repo);
    const before = app.issued.length;
    const h = await handed(r.body.id);
    const minted = app.issued.slice(before);
    expect(minted).toHaveLength(1);
    expect(h).toEqual({ kind: "handed", env: { BOT_FORGE_TOKEN: minted[0]!.token } });
    // The default: read the code, review the pull request.
    expect(minted[0]).toMatchObject({ repositories: ["widgets"], permissions: { contents: "read", metadata: "read", pull_requests: "write" } });
    // A bots-file entry's forge_permissions narrow it to those.
    await handed(r.body.id, { contents: "write", metadata: "read" });
    expect(app.issued.at(-1)).toMatchObject({ repositories: ["widgets"], permissions: { contents: "write", metadata: "read" } });
  });

  it("fails the attempt's credentials when GitHub refuses the repository (not in the installation)", async () => {
    const r = await launch({ connection_id: conn["github-app"], project_path: "acme/elsewhere" });
    const h = await handed(r.body.id);
    expect(h).toMatchObject({ kind: "unavailable", cause: expect.stringMatching(/^forge_b minted no installation token for acme\/elsewhere: /) });
  });

  it("hands no forge token to a run without a connection", async () => {
    const r = await launch({ repo_url: `https://forge.test/${WORLD.repo}.git` });
    expect(await handed(r.body.id)).toEqual({ kind: "handed", env: {} });
  });

  it.each([
    ["no repository", { connection_id: "github-token" }, "project_path"],
    ["a repo_url with no path", { connection_id: "github-token", repo_url: "https://forge.test/" }, "project_path"],
  ])("refuses %s with 400, launching nothing", async (_label, body, field) => {
    const named = { ...body, connection_id: conn[body.connection_id] };
    const before = (await t.store.db.selectFrom("runs").select("id").execute()).length;
    const r = await launch(named);
    expect(r.status).toBe(400);
    expect(r.body.field).toBe(field);
    expect((await t.store.db.selectFrom("runs").select("id").execute()).length).toBe(before);
  });

  it("answers an unknown connection, or another team's, as not found (404), launching nothing", async () => {
    expect((await launch({ connection_id: "fcn_nope", project_path: WORLD.repo })).status).toBe(404);
    const other = await s.outsider.api.post(`/api/teams/${s.otherTeam.id}/forge/connections`, {
      provider: "forgejo",
      base_url: fj.server.url,
      token: "forgejo-otherteam0001",
    });
    expect(other.status).toBe(201);
    const before = (await t.store.db.selectFrom("runs").select("id").execute()).length;
    const r = await launch({ connection_id: other.body.id, project_path: WORLD.repo });
    expect(r.status).toBe(404);
    expect((await t.store.db.selectFrom("runs").select("id").execute()).length).toBe(before);
  });

  it("hands a delivery's run on a provisioned repository the connection's credential for that repository", async () => {
    const p = await s.teamAdmin.api.post(`/api/teams/${s.team.id}/forge/repo-bots`, {
      connection_id: conn["github-app"],
      repo: WORLD.repo,
      bot_ids: ["review-pr"],
    });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    const hook = (await s.member.api.get(`/api/teams/${s.team.id}/forge/repo-bots`)).body.repo_bots.find((x: { id: string }) => x.id === p.body.id);
    const body = JSON.stringify(githubLikeComment("forge_b", "/re-review", WORLD.maria.login));
    const fake = ghHooks.of(WORLD.repo)[0]!.secret;
    const res = await t.app.inject({
      method: "POST",
      url: `/api/webhooks/forge_b/${hook.webhook_id}`,
      payload: body,
      headers: {
        "content-type": "application/json",
        "x-github-event": "issue_comment",
        "x-hub-signature-256": `sha256=${createHmac("sha256", fake).update(body).digest("hex")}`,
      },
    });
    expect(JSON.parse(res.body)).toMatchObject({ status: "launched" });
    const before = app.issued.length;
    const h = await handed(JSON.parse(res.body).run_id);
    expect(h.kind).toBe("handed");
    expect(app.issued.slice(before)).toMatchObject([{ repositories: ["widgets"] }]);
  });
});

describe.each(storeKinds())("an installation token minted for one attempt on %s", (kind) => {
  let t: TestApp;
  let s: Seed;
  let gh: FakeGitHub;
  let app: FakeGitHubApp;

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
    gh = await FakeGitHub.start();
    app = FakeGitHubApp.mount(gh.server, { id: 7, slug: "acme-review", installationId: 42, publicKey: keys.publicKey, now: () => t.clock.now() });
  });
  afterAll(async () => {
    await gh.server.close();
    await t.close();
  });

  it("is revoked on GitHub (DELETE /installation/token) when its attempt ends, and not before", async () => {
    const c = await s.teamAdmin.api.post(`/api/teams/${s.team.id}/forge/connections`, {
      provider: "github",
      base_url: gh.server.url,
      app_id: 7,
      private_key: pem,
      installation_id: 42,
    });
    const queue = t.services.runQueue;
    const revoked = () => gh.server.requests.filter((r) => r.method === "DELETE" && r.path.endsWith("/installation/token"));
    for (const end of ["finished", "cancelled"] as const) {
      const r = await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr", connection_id: c.body.id, project_path: WORLD.repo });
      expect(r.status).toBe(201);
      const claim = (await queue.claim("test", 60_000))!;
      expect(claim.run.id).toBe(r.body.id);
      const h = await t.services.runCredentials.handOver(claim.run, claim.attempt, []);
      const minted = app.issued.at(-1)!;
      expect(h).toEqual({ kind: "handed", env: { BOT_FORGE_TOKEN: minted.token } });
      const calls = revoked().length;
      expect(await t.services.tokenRevocations.revokeReleased()).toBe(0);
      expect(minted.revoked).toBe(false);
      if (end === "cancelled") {
        expect((await s.member.api.post(`/api/runs/${r.body.id}/cancel`)).body).toMatchObject({ cancel_requested: true });
        await queue.finish(claim, { status: "cancelled" });
      } else await queue.finish(claim, { status: "succeeded" });
      await vi.waitFor(() => expect(minted.revoked).toBe(true));
      expect(revoked()).toHaveLength(calls + 1);
    }
  });
});
