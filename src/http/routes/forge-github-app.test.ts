import { createHmac, generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubExample, loadGithubExamples } from "../../intake/fixtures/fixtures.js";
import { FakeGitHub } from "../../test-support/fake-forges/fake-github.js";
import { FakeGitHubApp } from "../../test-support/fake-forges/fake-github-app.js";
import { FakeHooks } from "../../test-support/fake-forges/fake-hooks.js";
import { seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";

const keyPair = () => generateKeyPairSync("rsa", { modulusLength: 2048 });
const pem = (k: ReturnType<typeof keyPair>) => k.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const MINUTE = 60_000;

describe.each(storeKinds())("GitHub App connections on %s", (kind) => {
  let t: TestApp;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;
  let gh: FakeGitHub;
  let app: FakeGitHubApp;
  let hooks: FakeHooks;
  const keys = keyPair();
  const seen: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(kind, { SERVICE_BASE_URL: "https://gw.example" });
    const inject = t.app.inject.bind(t.app);
    t.app.inject = (async (opts: unknown) => {
      const res = await inject(opts as never);
      seen.push(res.body);
      return res;
    }) as never;
    seed = await seedTenancy(t);
    gh = await FakeGitHub.start();
    hooks = FakeHooks.mount(gh.server, "github");
    app = FakeGitHubApp.mount(gh.server, { id: 7, slug: "acme-review", installationId: 42, publicKey: keys.publicKey, now: () => t.clock.now() });
  });
  afterAll(async () => {
    await gh.server.close();
    await t.close();
  });

  const connections = () => `/api/teams/${seed.team.id}/forge/connections`;
  const connect = (body: Record<string, unknown> = {}) =>
    seed.teamAdmin.api.post(connections(), { provider: "github", base_url: gh.server.url, app_id: 7, private_key: pem(keys), installation_id: 42, ...body });
  const secretsSeen = () => [pem(keys), ...app.issued.map((i) => i.token)];

  it("connects an App: its bot login is <slug>[bot], the key is sealed, never shown or logged", async () => {
    const r = await connect();
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ provider: "forge_b", auth: "app", bot_login: "acme-review[bot]", token_last4: "" });
    const row = await t.store.db.selectFrom("forge_connections").selectAll().where("id", "=", r.body.id).executeTakeFirstOrThrow();
    expect(row.sealed_blob).not.toContain("PRIVATE KEY");
    for (const secret of secretsSeen()) {
      expect(seen.join("\n")).not.toContain(secret);
      expect(t.logs.join("\n")).not.toContain(secret);
    }
  });

  it("refuses a key the App does not hold, an installation it lacks, half an App, and App fields off GitHub", async () => {
    expect((await connect({ private_key: pem(keyPair()) })).body).toMatchObject({ error: "unprocessable" });
    expect((await connect({ installation_id: 43 })).body).toMatchObject({ error: "unprocessable" });
    expect((await connect({ installation_id: undefined })).status).toBe(400);
    expect((await connect({ token: "ghp_x" })).status).toBe(400);
    expect((await connect({ provider: "gitlab" })).body).toMatchObject({ error: "invalid_request", field: "app_id" });
  });

  it("provisions with installation tokens, minting a new one before the old expires", async () => {
    const id = (await connect()).body.id;
    const provision = () => seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/repo-bots`, { connection_id: id, repo: "acme/widgets" });
    const pin = (base: string) => seed.teamAdmin.api.patch(`${connections()}/${id}`, { webhook_base_url: base });
    const lastWriteAuth = () => hooks.writes().at(-1)!.headers.authorization;

    expect((await provision()).body.forge_written).toBe(true);
    const first = app.issued.at(-1)!.token;
    expect(lastWriteAuth()).toBe(`Bearer ${first}`);

    t.clock.advance(54 * MINUTE);
    await pin("https://a.example");
    expect((await provision()).body.forge_written).toBe(true);
    expect(lastWriteAuth()).toBe(`Bearer ${first}`);

    // Four minutes left: inside the refresh margin, so a new token is minted before use.
    t.clock.advance(2 * MINUTE);
    await pin("https://b.example");
    expect((await provision()).body.forge_written).toBe(true);
    const second = app.issued.at(-1)!.token;
    expect(second).not.toBe(first);
    expect(lastWriteAuth()).toBe(`Bearer ${second}`);
    expect(hooks.of()).toHaveLength(1);

    // Nothing moved, and the token is past its margin: still no call to the forge at all.
    t.clock.advance(58 * MINUTE);
    const requests = gh.server.requests.length;
    expect((await provision()).body.forge_written).toBe(false);
    expect(gh.server.requests).toHaveLength(requests);

    const repos = await seed.member.api.get(`/api/teams/${seed.team.id}/forge/repos?connection_id=${id}`);
    expect(repos.body.repos).toEqual([expect.objectContaining({ repo: "acme/widgets", provisioned: true, hook: "ok" })]);
    expect((await seed.teamAdmin.api.patch(`${connections()}/${id}`, { token: "ghp_x" })).status).toBe(400);

    // The App's bot is the service's own identity (spec review rules 2 and 6): its pull request is not reviewed.
    const pr = githubExample(loadGithubExamples(), "pull_request", "opened") as any;
    for (const r of [pr.repository, pr.pull_request.base.repo, pr.pull_request.head.repo]) r.full_name = "acme/widgets";
    pr.pull_request.head.repo.id = pr.pull_request.base.repo.id;
    pr.pull_request.user.login = "acme-review[bot]";
    pr.pull_request.draft = false;
    const body = JSON.stringify(pr);
    const hook = hooks.of()[0]!;
    const delivered = await t.app.inject({
      method: "POST",
      url: new URL(hook.url).pathname,
      payload: body,
      headers: {
        "content-type": "application/json",
        "x-github-event": "pull_request",
        "x-github-delivery": "d-app",
        "x-hub-signature-256": `sha256=${createHmac("sha256", hook.secret).update(body).digest("hex")}`,
      },
    });
    expect(JSON.parse(delivered.body)).toMatchObject({ status: "filtered", reason: "opened by the service's own forge bot: acme-review[bot]" });
    for (const secret of secretsSeen()) {
      expect(seen.join("\n")).not.toContain(secret);
      expect(t.logs.join("\n")).not.toContain(secret);
    }
  });
});
