import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../test-support/fake-forges/fake-github.js";
import { FakeHooks } from "../../test-support/fake-forges/fake-hooks.js";
import { WORLD } from "../../test-support/fake-forges/world.js";
import { githubLikeComment } from "../../test-support/forge-deliveries.js";
import { seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";

/** A provisioned webhook names no forge_token: its lanes call the forge with its connection's credential. */
describe.each(storeKinds())("a provisioned repository's forge lanes on %s", (kind) => {
  let t: TestApp;
  let s: Seed;
  let gh: FakeGitHub;
  let hooks: FakeHooks;

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
    gh = await FakeGitHub.start();
    hooks = FakeHooks.mount(gh.server, "github");
  });
  afterAll(async () => {
    await gh.server.close();
    await t.close();
  });

  it("checks a command's replier and pull request with the connection's token, and launches", async () => {
    const c = await s.teamAdmin.api.post(`/api/teams/${s.team.id}/forge/connections`, {
      provider: "github",
      base_url: gh.server.url,
      token: "tok-connection-0001",
    });
    expect(c.status).toBe(201);
    const r = await s.teamAdmin.api.post(`/api/teams/${s.team.id}/forge/repo-bots`, {
      connection_id: c.body.id,
      repo: WORLD.repo,
      bot_ids: ["review-pr", "converse"],
    });
    expect(r.status).toBe(200);
    const hook = hooks.of()[0]!;
    const body = JSON.stringify(githubLikeComment("forge_b", "/re-review", WORLD.maria.login));
    const from = gh.server.requests.length;
    const res = await t.app.inject({
      method: "POST",
      url: new URL(hook.url).pathname,
      payload: body,
      headers: {
        "content-type": "application/json",
        "x-github-event": "issue_comment",
        "x-hub-signature-256": `sha256=${createHmac("sha256", hook.secret).update(body).digest("hex")}`,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.parse(res.body), res.body).toMatchObject({ status: "launched" });
    const calls = gh.server.requests.slice(from);
    expect(calls.map((q) => `${q.method} ${q.path}`)).toEqual(expect.arrayContaining([`GET /api/v3/repos/${WORLD.repo}/pulls/${WORLD.number}`]));
    expect(calls.every((q) => String(q.headers.authorization).endsWith("tok-connection-0001"))).toBe(true);
  });
});
