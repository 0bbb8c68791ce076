import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../config/logger.js";
import { Metering } from "../../metering/metering.js";
import { FakeGitHub } from "../../test-support/fake-forges/fake-github.js";
import { FakeHooks } from "../../test-support/fake-forges/fake-hooks.js";
import { seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";

type Seed = Awaited<ReturnType<typeof seedTenancy>>;

describe.each(storeKinds())("the web console on %s", (kind) => {
  let t: TestApp;
  let s: Seed;
  const origin = "http://127.0.0.1:8080";

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
  });
  afterAll(() => t.close());

  const get = (url: string, token?: string) =>
    t.app.inject({ method: "GET", url, headers: token ? { cookie: `console_token=${encodeURIComponent(token)}` } : {} });
  const signIn = (token: string, headers: Record<string, string> = { origin }) =>
    t.app.inject({
      method: "POST",
      url: "/console/sign-in",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      payload: `token=${encodeURIComponent(token)}`,
    });
  const memberToken = () => s.member.api.post("/api/users/me/tokens", { name: "console" }).then((r) => r.body.token as string);

  it("shows the sign-in page to an anonymous visitor, and signs in with a token into an HttpOnly, SameSite=Strict cookie", async () => {
    const anon = await get("/console");
    expect(anon.statusCode).toBe(200);
    expect(anon.body).toContain('<form method="post" action="/console/sign-in">');
    expect(anon.headers["cache-control"]).toBe("no-store");
    const token = await memberToken();
    const ok = await signIn(token);
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe("/console");
    expect(ok.headers["set-cookie"]).toMatch(/^console_token=iap_[^;]+; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    const home = await get("/console", token);
    expect(home.body).toContain("Signed in as <strong>member</strong>");
    expect(home.body).toContain(`href="/console/teams/${s.team.id}"`);
    expect(home.body).not.toContain(token);
  });

  it("refuses a bad token, a cross-site sign-in and a cross-site sign-out", async () => {
    expect((await signIn("iap_nope")).statusCode).toBe(401);
    const token = await memberToken();
    expect((await signIn(token, { origin: "https://evil.example" })).statusCode).toBe(403);
    expect((await signIn(token, {})).statusCode).toBe(403);
    const out = await t.app.inject({ method: "POST", url: "/console/sign-out", headers: { origin: "https://evil.example", cookie: `console_token=${token}` } });
    expect(out.statusCode).toBe(403);
    expect((await get("/console", "iap_revoked")).statusCode).toBe(401);
  });

  it("shows a webhook's delivery log with each reason, filtered by status and event, escaping what the forge sent", async () => {
    const hook = (await s.teamAdmin.api.post(`/api/teams/${s.team.id}/webhooks`, { provider: "generic", name: "ci <hook>", bot_ids: ["review-pr"] })).body;
    const deliver = (body: unknown) =>
      t.app.inject({
        method: "POST",
        url: `/api/webhooks/generic/${hook.config.id}`,
        headers: { "x-service-webhook-token": hook.token, "content-type": "application/json" },
        payload: body as object,
      });
    expect((await deliver({ bot: "review-pr", vars: { a: "1" } })).statusCode).toBe(200);
    expect((await deliver({ bot: "<script>alert(1)</script>" })).statusCode).toBe(400);
    const token = await memberToken();
    const team = await get(`/console/teams/${s.team.id}`, token);
    expect(team.body).toContain("ci &lt;hook&gt;");
    expect(team.body).toContain(`/api/webhooks/generic/${hook.config.id}`);
    const log = await get(`/console/teams/${s.team.id}/webhooks/${hook.config.id}`, token);
    expect(log.body).toContain('<span class="status s-launched">launched</span>');
    expect(log.body).toContain('<span class="status s-invalid">invalid</span>');
    expect(log.body).not.toContain("<script>alert(1)</script>");
    const launched = await get(`/console/teams/${s.team.id}/webhooks/${hook.config.id}?status=launched`, token);
    expect(launched.body).toContain("s-launched");
    expect(launched.body).not.toContain('<span class="status s-invalid">');
    const runId = /href="\/console\/runs\/(run_[a-z0-9]+)"/.exec(launched.body)?.[1];
    const run = await get(`/console/runs/${runId}`, token);
    expect(run.body).toContain("<h2>Attempts</h2>");
    expect(run.body).toContain("review-pr");
    // Each row links to its delivery's page: the record, the trace and the step that decided it.
    const pageOf = /href="(\/console\/teams\/[^"]+\/deliveries\/dlv_[a-z0-9]+)"/.exec(log.body)?.[1];
    const invalidPage = await get(pageOf!, token);
    expect(invalidPage.statusCode).toBe(200);
    expect(invalidPage.body).toContain("Decided by <strong>lane</strong>");
    expect(invalidPage.body).not.toContain("<script>alert(1)</script>");
    const launchedPage = await get(`${/href="(\/console\/teams\/[^"]+\/deliveries\/dlv_[a-z0-9]+)"/.exec(launched.body)?.[1]}`, token);
    expect(launchedPage.body).toContain("Decided by <strong>gate</strong>");
    expect(launchedPage.body).toContain(`/console/runs/${runId}`);
    // Pages: one row a page reads older rows through its cursor.
    const firstPage = await get(`/console/teams/${s.team.id}/webhooks/${hook.config.id}?status=launched&since=day`, token);
    expect(firstPage.body).not.toContain('rel="next"');
    expect(run.body).toContain("No attempt has started yet.");
    expect(run.body).toContain(`delivery <a href="/console/teams/${s.team.id}/webhooks/${hook.config.id}/deliveries/dlv_`);
    // Claimed, with output: the page holds it (escaped) and the script that follows it live.
    await t.store.db.updateTable("runs").set({ status: "cancelled" }).where("status", "=", "queued").where("id", "!=", runId!).execute();
    const claim = (await t.services.runQueue.claim("w", 60_000))!;
    expect(claim.run.id).toBe(runId);
    await t.services.runLogs.append(runId!, 1, [{ stream: "stdout", text: "<b>bold</b> claim\n" }]);
    const live = await get(`/console/runs/${runId}`, token);
    expect(live.body).toContain('<pre id="run-log" class="log" tabindex="0" data-live="true" data-stream="/console/runs/');
    expect(live.body).toContain("&lt;b&gt;bold&lt;/b&gt; claim\n</pre>");
    expect(live.body).toContain('<script src="/console/run.js" defer></script>');
    expect(live.body).not.toMatch(/<script>/);
    const script = await t.app.inject({ method: "GET", url: "/console/run.js" });
    expect(script.headers["content-type"]).toMatch(/^text\/javascript/);
    expect(script.body).toContain("new WebSocket(");
    expect(script.body).not.toContain("innerHTML");
    await t.services.runQueue.finish(claim, { status: "succeeded" });
    expect((await get(`/console/runs/${runId}`, token)).body).toContain('data-live="false"');
  });

  it("shows a kept request redacted and sends it again from the delivery's page, as a team admin only", async () => {
    const hook = (await s.teamAdmin.api.post(`/api/teams/${s.team.id}/webhooks`, { provider: "generic", bot_ids: ["review-pr"], keep_payloads: true })).body;
    const sent = await t.app.inject({
      method: "POST",
      url: `/api/webhooks/generic/${hook.config.id}`,
      headers: { "x-service-webhook-token": hook.token, "content-type": "application/json" },
      payload: { bot: "review-pr", vars: { note: "<b>bold</b>" } },
    });
    expect(sent.statusCode).toBe(200);
    const deliveryId = JSON.parse(sent.body).delivery_id as string;
    const url = `/console/teams/${s.team.id}/webhooks/${hook.config.id}/deliveries/${deliveryId}`;
    const adminToken = (await s.teamAdmin.api.post("/api/users/me/tokens", { name: "console" })).body.token as string;
    const shown = await get(url, adminToken);
    expect(shown.body).toContain("<h2>Request</h2>");
    expect(shown.body).toContain("[redacted]");
    expect(shown.body).not.toContain(hook.token);
    expect(shown.body).toContain("&lt;b&gt;bold&lt;/b&gt;");
    expect(shown.body).toContain(`action="${url}/redeliver"`);
    const post = (token: string, headers: Record<string, string> = { origin }) =>
      t.app.inject({
        method: "POST",
        url: `${url}/redeliver`,
        headers: { cookie: `console_token=${encodeURIComponent(token)}`, "content-type": "application/x-www-form-urlencoded", ...headers },
        payload: "fresh_key=on",
      });
    expect((await post(adminToken, {})).statusCode).toBe(403);
    const denied = await post(await memberToken());
    expect(denied.statusCode).toBe(403);
    expect(denied.body).toContain("team admin");
    const again = await post(adminToken);
    expect(again.statusCode).toBe(303);
    const next = String(again.headers.location);
    expect(next).toMatch(/\/deliveries\/dlv_/);
    expect(next).not.toContain(deliveryId);
    const page = await get(next, adminToken);
    expect(page.body).toContain('<span class="status s-launched">launched</span>');
    expect(page.body).toContain(`${url}"`);
  });

  it("shows the question a run waits on with a form that answers it from the console's own origin", async () => {
    await t.store.db.updateTable("runs").set({ status: "cancelled" }).where("status", "=", "queued").execute();
    const runId = (await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr" })).body.id;
    const claim = (await t.services.runQueue.claim("w", 60_000))!;
    const question = { text: "Deploy <now>?", choices: ["yes", "no"] };
    await t.services.runQueue.finish(claim, { status: "failed_resumable", failureCode: "QUESTION", detail: question.text, question });
    const token = await memberToken();
    const shown = await get(`/console/runs/${runId}`, token);
    expect(shown.body).toContain("<p>Deploy &lt;now&gt;?</p>");
    expect(shown.body).toContain(`<form method="post" action="/console/runs/${runId}/answer">`);
    expect(shown.body).toContain('<option value="yes">yes</option>');
    const answer = (headers: Record<string, string>, payload: string) =>
      t.app.inject({
        method: "POST",
        url: `/console/runs/${runId}/answer`,
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: `console_token=${encodeURIComponent(token)}`, ...headers },
        payload,
      });
    expect((await answer({ origin: "https://evil.example" }, "answer=yes")).statusCode).toBe(403);
    expect((await answer({ origin }, "answer=maybe")).statusCode).toBe(400);
    const ok = await answer({ origin }, "answer=yes");
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe(`/console/runs/${runId}`);
    expect((await s.member.api.get(`/api/runs/${runId}`)).body).toMatchObject({ status: "queued", answer: "yes" });
    expect((await answer({ origin }, "answer=no")).statusCode).toBe(409);
  });

  it("shows an org's usage against its caps and the team's ledger, and nothing of another org", async () => {
    await s.admin.patch(`/api/admin/orgs/${s.org.id}`, { monthly_run_quota: 10, monthly_cost_cap_usd: 5 });
    const token = await memberToken();
    const usage = await get(`/console/orgs/${s.org.id}/usage`, token);
    expect(usage.body).toMatch(/<strong>Runs<\/strong>: \d+ of 10/);
    expect(usage.body).toContain('role="meter"');
    expect((await get(`/console/teams/${s.team.id}/ledger?month=2026-11`, token)).statusCode).toBe(200);
    expect((await get(`/console/teams/${s.team.id}/ledger?month=nope`, token)).statusCode).toBe(400);
    const orgB = (await s.admin.post("/api/admin/orgs", { name: "Globex" })).body;
    const user = (await s.admin.post("/api/admin/users", { login: "console-intruder" })).body;
    await s.admin.put(`/api/orgs/${orgB.id}/members/${user.id}`, { role: "admin" });
    const intruder = (await s.admin.post(`/api/admin/users/${user.id}/tokens`, { name: "c" })).body.token;
    for (const url of [
      `/console/teams/${s.team.id}`,
      `/console/orgs/${s.org.id}/usage`,
      `/console/teams/${s.team.id}/runs`,
      `/console/teams/${s.team.id}/ledger`,
      `/console/teams/${s.team.id}/forge`,
    ]) {
      const r = await get(url, intruder);
      expect(r.statusCode, url).toBe(404);
      expect(r.body).not.toContain("Platform");
    }
  });

  it("shows the team's forge connections and provisioned repositories, and a repository's hook health read from the forge", async () => {
    const gh = await FakeGitHub.start();
    try {
      const hooks = FakeHooks.mount(gh.server, "github");
      const c = await s.teamAdmin.api.post(`/api/teams/${s.team.id}/forge/connections`, { provider: "github", base_url: gh.server.url, token: "ghp_console" });
      const rb = (await s.teamAdmin.api.post(`/api/teams/${s.team.id}/forge/repo-bots`, { connection_id: c.body.id, repo: "acme/widgets" })).body;
      const token = await memberToken();
      expect((await get(`/console/teams/${s.team.id}`, token)).body).toContain(`href="/console/teams/${s.team.id}/forge"`);
      const forge = await get(`/console/teams/${s.team.id}/forge`, token);
      expect(forge.statusCode).toBe(200);
      expect(forge.body).toContain(c.body.bot_login);
      expect(forge.body).toContain(`<a href="/console/teams/${s.team.id}/forge/repo-bots/${rb.id}">acme/widgets</a>`);
      expect(forge.body).toContain(`<a href="/console/teams/${s.team.id}/webhooks/${rb.webhook_id}">deliveries</a>`);
      expect(forge.body).not.toContain("ghp_console");
      const healthy = await get(`/console/teams/${s.team.id}/forge/repo-bots/${rb.id}`, token);
      expect(healthy.body).toContain('<span class="status s-healthy">healthy</span>');
      hooks.disable(hooks.of()[0]!);
      const broken = await get(`/console/teams/${s.team.id}/forge/repo-bots/${rb.id}`, token);
      expect(broken.body).toContain('<span class="status s-broken">broken</span>');
      expect(broken.body).toContain("<code>hook_disabled</code>");
      expect((await get(`/console/teams/${s.team.id}/forge/repo-bots/rbt_nope`, token)).statusCode).toBe(404);
    } finally {
      await gh.server.close();
    }
  });

  it("signs in with a password to a session that signing out ends; a wrong one, an admin-set one are refused", async () => {
    const form = (body: string) =>
      t.app.inject({ method: "POST", url: "/console/sign-in", headers: { "content-type": "application/x-www-form-urlencoded", origin }, payload: body });
    const u = (await s.admin.post("/api/admin/users", { login: "console-pw" })).body;
    expect((await s.admin.put(`/api/admin/users/${u.id}/password`, { password: "correct horse battery" })).status).toBe(200);
    const restricted = await form("login=console-pw&password=correct+horse+battery");
    expect(restricted.statusCode).toBe(303);
    expect(restricted.headers.location).toBe("/console/password");
    const reset = (await s.admin.post(`/api/admin/users/${u.id}/password-reset`)).body;
    await t.app.inject({ method: "POST", url: "/api/auth/password-reset/confirm", payload: { token: reset.token, password: "battery staple horse" } });
    expect((await form("login=console-pw&password=nope+nope+nope")).statusCode).toBe(401);
    const ok = await form("login=console-pw&password=battery+staple+horse");
    expect(ok.statusCode).toBe(303);
    const session = /console_token=([^;]+)/.exec(String(ok.headers["set-cookie"]))![1]!;
    expect(decodeURIComponent(session)).toMatch(/^ses_/);
    expect((await get("/console", decodeURIComponent(session))).body).toContain("Signed in as <strong>console-pw</strong>");
    const out = await t.app.inject({ method: "POST", url: "/console/sign-out", headers: { origin, cookie: `console_token=${session}` } });
    expect(out.statusCode).toBe(303);
    expect((await get("/console", decodeURIComponent(session))).statusCode).toBe(401);
  });

  it("takes a user whose admin-set password must change to the change-password form, which changes it as the API does", async () => {
    const form = (url: string, body: string, headers: Record<string, string> = { origin }) =>
      t.app.inject({ method: "POST", url, headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, payload: body });
    const u = (await s.admin.post("/api/admin/users", { login: "console-change" })).body;
    await s.admin.put(`/api/admin/users/${u.id}/password`, { password: "admin chose this one" });
    const signedIn = await form("/console/sign-in", "login=console-change&password=admin+chose+this+one");
    expect(signedIn.headers.location).toBe("/console/password");
    const session = decodeURIComponent(/console_token=([^;]+)/.exec(String(signedIn.headers["set-cookie"]))![1]!);
    const cookie = `console_token=${encodeURIComponent(session)}`;
    // Every other page sends the restricted session to the form; the API still refuses it.
    const home = await get("/console", session);
    expect(home.statusCode).toBe(303);
    expect(home.headers.location).toBe("/console/password");
    const shown = await get("/console/password", session);
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain('<form method="post" action="/console/password">');
    expect(shown.body).toContain("must be changed");
    expect(
      (
        await form("/console/password", "current_password=admin+chose+this+one&password=my+own+secret+words&password_again=my+own+secret+words", {
          origin: "https://evil.example",
          cookie,
        })
      ).statusCode,
    ).toBe(403);
    expect(
      (
        await form("/console/password", "current_password=admin+chose+this+one&password=my+own+secret+words&password_again=other+words+here", {
          origin,
          cookie,
        })
      ).statusCode,
    ).toBe(400);
    const wrong = await form("/console/password", "current_password=not+the+one+at+all&password=my+own+secret+words&password_again=my+own+secret+words", {
      origin,
      cookie,
    });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.body).toContain("current_password is missing or wrong");
    const short = await form("/console/password", "current_password=admin+chose+this+one&password=short&password_again=short", { origin, cookie });
    expect(short.statusCode).toBe(400);
    const ok = await form("/console/password", "current_password=admin+chose+this+one&password=my+own+secret+words&password_again=my+own+secret+words", {
      origin,
      cookie,
    });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe("/console/password?changed=1");
    expect((await get("/console/password?changed=1", session)).body).toContain("Your password is changed");
    const home2 = await get("/console", session);
    expect(home2.statusCode).toBe(200);
    expect(home2.body).toContain('<a href="/console/password">Change password</a>');
    const login = await t.app.inject({ method: "POST", url: "/api/auth/login", payload: { login: "console-change", password: "my own secret words" } });
    expect(login.json()).toMatchObject({ password_change_required: false });
    // Anonymous: the sign-in page; a posted change without a session is refused.
    expect((await get("/console/password")).body).toContain('action="/console/sign-in"');
    expect((await form("/console/password", "password=my+own+secret+words&password_again=my+own+secret+words")).statusCode).toBe(401);
  });

  it("cancels and resumes a run from its page as a team member, never from elsewhere or for another org", async () => {
    await t.store.db.updateTable("runs").set({ status: "cancelled" }).where("status", "=", "queued").execute();
    const runId = (await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr" })).body.id;
    const token = await memberToken();
    const post = (url: string, tok: string, headers: Record<string, string> = { origin }) =>
      t.app.inject({
        method: "POST",
        url,
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: `console_token=${encodeURIComponent(tok)}`, ...headers },
        payload: "",
      });
    const queued = await get(`/console/runs/${runId}`, token);
    expect(queued.body).toContain(`<form method="post" action="/console/runs/${runId}/cancel">`);
    expect(queued.body).not.toContain(`action="/console/runs/${runId}/resume"`);
    expect((await post(`/console/runs/${runId}/cancel`, token, { origin: "https://evil.example" })).statusCode).toBe(403);
    expect((await post(`/console/runs/${runId}/cancel`, token, {})).statusCode).toBe(403);
    const orgB = (await s.admin.post("/api/admin/orgs", { name: "Initech" })).body;
    const user = (await s.admin.post("/api/admin/users", { login: "console-runs-intruder" })).body;
    await s.admin.put(`/api/orgs/${orgB.id}/members/${user.id}`, { role: "admin" });
    const intruder = (await s.admin.post(`/api/admin/users/${user.id}/tokens`, { name: "c" })).body.token;
    expect((await post(`/console/runs/${runId}/cancel`, intruder)).statusCode).toBe(404);
    expect((await post(`/console/runs/${runId}/resume`, intruder)).statusCode).toBe(404);
    expect((await s.member.api.get(`/api/runs/${runId}`)).body.status).toBe("queued");
    const cancelled = await post(`/console/runs/${runId}/cancel`, token);
    expect(cancelled.statusCode).toBe(303);
    expect(cancelled.headers.location).toBe(`/console/runs/${runId}`);
    expect((await s.member.api.get(`/api/runs/${runId}`)).body.status).toBe("cancelled");
    const after = await get(`/console/runs/${runId}`, token);
    expect(after.body).not.toContain(`action="/console/runs/${runId}/cancel"`);
    // A cancelled run is not resumable: the service's refusal is shown.
    const refused = await post(`/console/runs/${runId}/resume`, token);
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('class="error"');
    // A failed run is resumed through the gate and queued again.
    const failedId = (await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr" })).body.id;
    const claim = (await t.services.runQueue.claim("w", 60_000))!;
    await t.services.runQueue.finish(claim, { status: "failed", failureCode: "BOT_EXIT", detail: "exit 1" });
    const failed = await get(`/console/runs/${failedId}`, token);
    expect(failed.body).toContain(`<form method="post" action="/console/runs/${failedId}/resume">`);
    const resumed = await post(`/console/runs/${failedId}/resume`, token);
    expect(resumed.statusCode).toBe(303);
    expect(resumed.headers.location).toBe(`/console/runs/${failedId}`);
    expect((await s.member.api.get(`/api/runs/${failedId}`)).body.status).toBe("queued");
  });

  it("rotates a webhook's token with an overlap as a team admin, showing it once; a member and another org cannot", async () => {
    const hook = (await s.teamAdmin.api.post(`/api/teams/${s.team.id}/webhooks`, { provider: "generic", name: "rotating", bot_ids: ["review-pr"] })).body;
    const url = `/console/teams/${s.team.id}/webhooks/${hook.config.id}`;
    const adminToken = (await s.teamAdmin.api.post("/api/users/me/tokens", { name: "console" })).body.token as string;
    const post = (tok: string, payload: string, headers: Record<string, string> = { origin }) =>
      t.app.inject({
        method: "POST",
        url: `${url}/rotate`,
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: `console_token=${encodeURIComponent(tok)}`, ...headers },
        payload,
      });
    expect((await get(url, adminToken)).body).toContain(`<form method="post" action="${url}/rotate">`);
    expect((await post(adminToken, "overlap_seconds=60", { origin: "https://evil.example" })).statusCode).toBe(403);
    expect((await post(await memberToken(), "overlap_seconds=60")).statusCode).toBe(403);
    const orgB = (await s.admin.post("/api/admin/orgs", { name: "Umbrella" })).body;
    const user = (await s.admin.post("/api/admin/users", { login: "console-hook-intruder" })).body;
    await s.admin.put(`/api/orgs/${orgB.id}/members/${user.id}`, { role: "admin" });
    const intruder = (await s.admin.post(`/api/admin/users/${user.id}/tokens`, { name: "c" })).body.token;
    expect((await post(intruder, "overlap_seconds=60")).statusCode).toBe(404);
    expect((await post(adminToken, "overlap_seconds=lots")).statusCode).toBe(400);
    expect((await post(adminToken, "overlap_seconds=99999999")).statusCode).toBe(400);
    const deliver = (token: string) =>
      t.app.inject({
        method: "POST",
        url: `/api/webhooks/generic/${hook.config.id}`,
        headers: { "x-service-webhook-token": token, "content-type": "application/json" },
        payload: { bot: "review-pr" },
      });
    expect((await deliver(hook.token)).statusCode).toBe(200);
    const ok = await post(adminToken, "overlap_seconds=3600");
    expect(ok.statusCode).toBe(200);
    const fresh = /<code class="secret">([^<]+)<\/code>/.exec(ok.body)![1]!;
    expect(fresh).not.toBe(hook.token);
    expect(ok.body).toContain("keep working until");
    expect((await deliver(fresh)).statusCode).toBe(200);
    expect((await deliver(hook.token)).statusCode).toBe(200);
    const noOverlap = await post(adminToken, "overlap_seconds=0");
    expect(noOverlap.body).toContain("stopped working now");
    expect((await deliver(fresh)).statusCode).not.toBe(200);
  });

  it("lists every org on a super-admin's home with links to its teams; an org's teams as each role may see them", async () => {
    const tokenOf = (api: { post: (u: string, b: unknown) => Promise<{ body: { token: string } }> }) =>
      api.post("/api/users/me/tokens", { name: "console" }).then((r) => r.body.token);
    const home = await get("/console", t.adminToken);
    expect(home.body).toContain("<h2>All organisations</h2>");
    expect(home.body).toContain(`<a href="/console/orgs/${s.org.id}/teams">Acme</a>`);
    const teamsUrl = `/console/orgs/${s.org.id}/teams`;
    const asSuper = await get(teamsUrl, t.adminToken);
    expect(asSuper.statusCode).toBe(200);
    expect(asSuper.body).toContain("Teams of Acme");
    expect(asSuper.body).toContain(`<a href="/console/teams/${s.team.id}">Platform</a>`);
    expect(asSuper.body).toContain(`<a href="/console/teams/${s.otherTeam.id}">Other</a>`);
    const orgAdmin = await tokenOf(s.orgAdmin.api);
    expect((await get("/console", orgAdmin)).body).not.toContain("All organisations");
    expect((await get("/console", orgAdmin)).body).toContain(`href="${teamsUrl}"`);
    const asOrgAdmin = await get(teamsUrl, orgAdmin);
    expect(asOrgAdmin.body).toContain(`>Platform</a>`);
    expect(asOrgAdmin.body).toContain(`>Other</a>`);
    const member = await get(teamsUrl, await memberToken());
    expect(member.statusCode).toBe(200);
    expect(member.body).toContain(`>Platform</a>`);
    expect(member.body).not.toContain(`>Other</a>`);
    expect((await get("/console", await memberToken())).body).not.toContain("All organisations");
    const orgB = (await s.admin.post("/api/admin/orgs", { name: "Hooli" })).body;
    const user = (await s.admin.post("/api/admin/users", { login: "console-org-intruder" })).body;
    await s.admin.put(`/api/orgs/${orgB.id}/members/${user.id}`, { role: "admin" });
    const intruder = (await s.admin.post(`/api/admin/users/${user.id}/tokens`, { name: "c" })).body.token;
    const refused = await get(teamsUrl, intruder);
    expect(refused.statusCode).toBe(404);
    expect(refused.body).not.toContain("Platform");
    expect((await get("/console/orgs/org_nope/teams", t.adminToken)).statusCode).toBe(404);
  });

  it("shows an org's runs and spend per day of the month to its members, with a bar each, and to no one else", async () => {
    const was = t.clock.now();
    try {
      const org = (await s.admin.post("/api/admin/orgs", { name: "Daily" })).body;
      const team = (await s.admin.post(`/api/orgs/${org.id}/teams`, { name: "Daily team" })).body;
      const other = (await s.admin.post("/api/admin/orgs", { name: "Daily rival" })).body;
      const otherTeam = (await s.admin.post(`/api/orgs/${other.id}/teams`, { name: "Rival team" })).body;
      const user = (await s.admin.post("/api/admin/users", { login: "console-daily" })).body;
      await s.admin.put(`/api/orgs/${org.id}/members/${user.id}`, { role: "member" });
      const token = (await s.admin.post(`/api/admin/users/${user.id}/tokens`, { name: "c" })).body.token as string;
      const spend = async (teamId: string, at: number, costMicro: number) => {
        t.clock.set(at);
        const r = await t.services.launcher.launch({ teamId, botId: "review-pr", vars: {}, source: "api", actor: { userId: null, kind: "user" } });
        if (r.kind !== "launched") throw new Error("denied");
        await new Metering({ store: t.store, clock: t.clock, log: createLogger("silent") }).record(r.run.id, 1, {
          reportId: "1:r",
          costMicro,
          inputTokens: 0,
          outputTokens: 0,
          aggregateTokens: 0,
          fingerprint: null,
          provider: null,
          tier: null,
          repo: null,
          amountType: "metered",
        });
      };
      await spend(team.id, Date.UTC(2026, 9, 31, 23, 0), 9_000_000); // last month: not shown
      await spend(team.id, Date.UTC(2026, 10, 3, 10, 0), 1_500_000);
      await spend(team.id, Date.UTC(2026, 10, 5, 1, 0), 250_000);
      await spend(team.id, Date.UTC(2026, 10, 5, 23, 59), 0);
      await spend(otherTeam.id, Date.UTC(2026, 10, 4, 12, 0), 7_000_000); // another org: not shown
      t.clock.set(Date.UTC(2026, 10, 5, 23, 59, 30));
      const page = await get(`/console/orgs/${org.id}/usage`, token);
      expect(page.statusCode).toBe(200);
      const rows = [
        ...page.body.matchAll(
          /<tr><td><time datetime="(2026-\d\d-\d\d)">[^<]*<\/time><\/td><td class="num">(\d+)<\/td><td>.*?<\/td><td class="num">([\d.]+) USD<\/td><td>(.*?)<\/td><\/tr>/g,
        ),
      ].map((m) => [m[1], Number(m[2]), m[3]]);
      expect(rows).toEqual([
        ["2026-11-01", 0, "0.00"],
        ["2026-11-02", 0, "0.00"],
        ["2026-11-03", 1, "1.50"],
        ["2026-11-04", 0, "0.00"],
        ["2026-11-05", 2, "0.25"],
      ]);
      // Bars scaled to the busiest day, as classes (the policy allows no inline style).
      expect(page.body).toContain('<div class="bar mini" aria-hidden="true"><span class="w100"></span></div>');
      expect(page.body).toContain('<span class="w17"></span>');
      expect(page.body).not.toMatch(/style=/);
      expect((await get("/console/style.css")).body).toContain(".bar.mini");
      // The super-admin sees it; a member of another org does not.
      expect((await get(`/console/orgs/${org.id}/usage`, t.adminToken)).body).toContain('datetime="2026-11-03"');
      const rival = (await s.admin.post("/api/admin/users", { login: "console-daily-rival" })).body;
      await s.admin.put(`/api/orgs/${other.id}/members/${rival.id}`, { role: "admin" });
      const rivalToken = (await s.admin.post(`/api/admin/users/${rival.id}/tokens`, { name: "c" })).body.token as string;
      const refused = await get(`/console/orgs/${org.id}/usage`, rivalToken);
      expect(refused.statusCode).toBe(404);
      expect(refused.body).not.toContain("2026-11-03");
    } finally {
      t.clock.set(was);
    }
  });
});

describe.each(storeKinds())("the console's password change on %s, with passwords that expire", (kind) => {
  let t: TestApp;
  let s: Seed;
  const origin = "http://127.0.0.1:8080";

  beforeAll(async () => {
    t = await startTestApp(kind, { SERVICE_PASSWORD_MAX_AGE: "720h" });
    s = await seedTenancy(t);
  });
  afterAll(() => t.close());

  it("takes a user whose password expired to the change-password form at sign-in, and on once it is changed", async () => {
    const form = (url: string, body: string, cookie?: string) =>
      t.app.inject({
        method: "POST",
        url,
        headers: { "content-type": "application/x-www-form-urlencoded", origin, ...(cookie ? { cookie } : {}) },
        payload: body,
      });
    const u = (await s.admin.post("/api/admin/users", { login: "console-expiry" })).body;
    const reset = (await s.admin.post(`/api/admin/users/${u.id}/password-reset`)).body;
    await t.app.inject({ method: "POST", url: "/api/auth/password-reset/confirm", payload: { token: reset.token, password: "fresh enough words" } });
    const fresh = await form("/console/sign-in", "login=console-expiry&password=fresh+enough+words");
    expect(fresh.headers.location).toBe("/console");
    t.clock.advance(721 * 3600_000);
    const expired = await form("/console/sign-in", "login=console-expiry&password=fresh+enough+words");
    expect(expired.statusCode).toBe(303);
    expect(expired.headers.location).toBe("/console/password");
    const cookie = String(expired.headers["set-cookie"]).split(";")[0]!;
    const runs = await t.app.inject({ method: "GET", url: `/console/teams/${s.team.id}/runs`, headers: { cookie } });
    expect(runs.headers.location).toBe("/console/password");
    const changed = await form("/console/password", "current_password=fresh+enough+words&password=newer+words+still&password_again=newer+words+still", cookie);
    expect(changed.headers.location).toBe("/console/password?changed=1");
    expect((await t.app.inject({ method: "GET", url: "/console", headers: { cookie } })).statusCode).toBe(200);
    expect((await form("/console/sign-in", "login=console-expiry&password=newer+words+still")).headers.location).toBe("/console");
  });
});
