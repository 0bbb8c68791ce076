import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../test-support/fake-forges/fake-github.js";
import { FakeHooks } from "../../test-support/fake-forges/fake-hooks.js";
import { freePort, seedTenancy, startListeningTestApp, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";

/** The console's forms on an app: GET a page, POST a form, as a signed-in browser on the console's own origin. */
function browser(t: TestApp) {
  const origin = t.config.baseUrl;
  const cookie = (token: string) => ({ cookie: `console_token=${encodeURIComponent(token)}` });
  return {
    get: (url: string, token: string) => t.app.inject({ method: "GET", url, headers: cookie(token) }),
    post: (url: string, token: string, payload: string, headers: Record<string, string> = { origin }) =>
      t.app.inject({ method: "POST", url, headers: { "content-type": "application/x-www-form-urlencoded", ...cookie(token), ...headers }, payload }),
  };
}
const consoleToken = (s: Seed, who: "member" | "teamAdmin" | "outsider") =>
  s[who].api.post("/api/users/me/tokens", { name: "console" }).then((r) => r.body.token as string);

describe.each(storeKinds())("the console's settings forms on %s", (kind) => {
  let t: TestApp & { url: string };
  let s: Seed;

  beforeAll(async () => {
    t = await startListeningTestApp(kind);
    s = await seedTenancy(t);
  });
  afterAll(() => t.close());

  it("sets the team's board as a team admin; a member, another team and a cross-site post cannot", async () => {
    const b = browser(t);
    const [admin, member, outsider] = [await consoleToken(s, "teamAdmin"), await consoleToken(s, "member"), await consoleToken(s, "outsider")];
    const url = `/console/teams/${s.team.id}/board`;
    const page = (await b.get(`/console/teams/${s.team.id}`, member)).body;
    expect(page).toContain(`<form method="post" action="${url}">`);
    expect(page).toContain('<option value="off" selected>');
    expect((await b.post(url, admin, "board_mode=track", { origin: "https://evil.example" })).statusCode).toBe(403);
    expect((await b.post(url, member, "board_mode=track")).statusCode).toBe(403);
    expect((await b.post(url, outsider, "board_mode=track")).statusCode).toBe(404);
    const bad = await b.post(url, admin, "board_mode=sometimes");
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('class="error"');
    expect((await s.member.api.get(`/api/teams/${s.team.id}`)).body.board_mode).toBe("off");
    const ok = await b.post(url, admin, "board_mode=coordinate");
    expect([ok.statusCode, ok.headers.location]).toEqual([303, `/console/teams/${s.team.id}`]);
    expect((await s.member.api.get(`/api/teams/${s.team.id}`)).body.board_mode).toBe("coordinate");
    expect((await b.get(`/console/teams/${s.team.id}`, member)).body).toContain('<option value="coordinate" selected>');
  });

  it("sets a provisioned repository's gate as a team admin, without writing to the forge; a member cannot", async () => {
    const gh = await FakeGitHub.start();
    try {
      FakeHooks.mount(gh.server, "github");
      const c = await s.teamAdmin.api.post(`/api/teams/${s.team.id}/forge/connections`, { provider: "github", base_url: gh.server.url, token: "ghp_gate" });
      const rb = (await s.teamAdmin.api.post(`/api/teams/${s.team.id}/forge/repo-bots`, { connection_id: c.body.id, repo: "acme/widgets" })).body;
      const b = browser(t);
      const [admin, member, outsider] = [await consoleToken(s, "teamAdmin"), await consoleToken(s, "member"), await consoleToken(s, "outsider")];
      const here = `/console/teams/${s.team.id}/forge/repo-bots/${rb.id}`;
      const page = (await b.get(here, member)).body;
      expect(page).toContain(`<form method="post" action="${here}/gate">`);
      expect(page).toContain('<input type="checkbox" name="review_after_gate">');
      expect((await b.post(`${here}/gate`, member, "gate_context=ci%2Ftest&review_after_gate=on")).statusCode).toBe(403);
      expect((await b.post(`${here}/gate`, outsider, "gate_context=ci%2Ftest&review_after_gate=on")).statusCode).toBe(404);
      expect((await b.post(`${here}/gate`, admin, "gate_context=ci%2Ftest&review_after_gate=on", { origin: "https://evil.example" })).statusCode).toBe(403);
      const stored = async () => (await s.member.api.get(`/api/teams/${s.team.id}/forge/repo-bots`)).body.repo_bots.find((x: { id: string }) => x.id === rb.id);
      expect(await stored()).toMatchObject({ gate_context: null, review_after_gate: false });
      const ok = await b.post(`${here}/gate`, admin, "gate_context=ci%2Ftest&review_after_gate=on");
      expect([ok.statusCode, ok.headers.location]).toEqual([303, here]);
      expect(await stored()).toMatchObject({ gate_context: "ci/test", review_after_gate: true, auto_fix_on_gate_failure: false, hook_id: rb.hook_id });
      const shown = (await b.get(here, member)).body;
      expect(shown).toContain('<input name="gate_context" value="ci/test"');
      expect(shown).toContain('<input type="checkbox" name="review_after_gate" checked>');
      // An unticked box is off: a form sends only the ticked ones.
      expect((await b.post(`${here}/gate`, admin, "gate_context=ci%2Ftest&auto_fix_on_gate_failure=on")).statusCode).toBe(303);
      expect(await stored()).toMatchObject({ gate_context: "ci/test", review_after_gate: false, auto_fix_on_gate_failure: true });
      expect((await b.post(`/console/teams/${s.team.id}/forge/repo-bots/rbt_nope/gate`, admin, "gate_context=x")).statusCode).toBe(404);
    } finally {
      await gh.server.close();
    }
  });

  it("shows a test delivery's outcome with its hint; the delivery it gave is linked", async () => {
    const hook = (await s.teamAdmin.api.post(`/api/teams/${s.team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] })).body.config.id as string;
    const b = browser(t);
    const here = `/console/teams/${s.team.id}/webhooks/${hook}`;
    const done = await b.post(`${here}/ping`, await consoleToken(s, "teamAdmin"), "");
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain("Test delivery landed");
    expect(done.body).toContain(`sent to <code>${t.url}/api/webhooks/forge_b/${hook}</code>`);
    expect(done.body).toContain("Answered 200: filtered: ping: nothing to launch");
    expect(done.body).toMatch(/<strong>Check:<\/strong> This service answered, but SERVICE_BASE_URL \(127\.0\.0\.1\) is a loopback address/);
    const id = (await s.member.api.get(`/api/teams/${s.team.id}/webhooks/${hook}/deliveries`)).body.deliveries[0].id;
    expect(done.body).toContain(`<a href="${here}/deliveries/${id}">The delivery</a>`);
  });
});

describe("the console's test delivery when SERVICE_BASE_URL reaches nothing", () => {
  it("says it did not land, why, and what to check", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const t = await startTestApp("sqlite", { SERVICE_BASE_URL: closed });
    try {
      const s = await seedTenancy(t);
      const hook = (await s.teamAdmin.api.post(`/api/teams/${s.team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] })).body.config.id as string;
      const done = await browser(t).post(`/console/teams/${s.team.id}/webhooks/${hook}/ping`, await consoleToken(s, "teamAdmin"), "");
      expect(done.statusCode).toBe(200);
      expect(done.body).toContain("Test delivery did not land");
      expect(done.body).toContain('<p class="error">Unreachable (refused): connect ECONNREFUSED');
      expect(done.body).toContain(`<strong>Check:</strong> Nothing accepts connections at ${closed}. SERVICE_BASE_URL must be the address forges call`);
      expect(done.body).toContain(`<a href="/console/teams/${s.team.id}/webhooks/${hook}">Back to the deliveries</a>`);
    } finally {
      await t.close();
    }
  });
});
