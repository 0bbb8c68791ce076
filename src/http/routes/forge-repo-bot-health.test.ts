import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeForgejo } from "../../test-support/fake-forges/fake-forgejo.js";
import { FakeGitHub } from "../../test-support/fake-forges/fake-github.js";
import { FakeGitLab } from "../../test-support/fake-forges/fake-gitlab.js";
import { gitlabTestPush } from "../../test-support/fake-forges/fake-hook-answers.js";
import { FakeHooks, type StoredHook } from "../../test-support/fake-forges/fake-hooks.js";
import type { FakeServer } from "../../test-support/fake-forges/fake-server.js";
import { WORLD } from "../../test-support/fake-forges/world.js";
import { type Seed, seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";

const BASE = "https://gw.example";
const FORGES = [
  { provider: "forge_b", alias: "github", flavour: "github", start: () => FakeGitHub.start() },
  { provider: "forge_a", alias: "gitlab", flavour: "gitlab", start: () => FakeGitLab.start() },
  { provider: "forge_c", alias: "forgejo", flavour: "forgejo", start: () => FakeForgejo.start() },
] as const;
const cases = storeKinds().flatMap((kind) => FORGES.map((forge) => [kind, forge.provider, forge] as const));

describe.each(cases)("a provisioned repository's hook health on %s for %s", (kind, provider, forge) => {
  let t: TestApp;
  let seed: Seed;
  let server: FakeServer;
  let hooks: FakeHooks;
  let repoBot = { id: "", webhook_id: "" };

  const path = (id = repoBot.id) => `/api/teams/${seed.team.id}/forge/repo-bots/${id}`;
  const health = async () => {
    const r = await seed.member.api.get(`${path()}/health`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };
  const repair = async () => {
    const r = await seed.teamAdmin.api.post(`${path()}/repair`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };
  const codes = (report: { problems: { code: string }[] }) => report.problems.map((p) => p.code);
  const stored = (): StoredHook => {
    const [only, ...more] = hooks.of();
    expect(more).toEqual([]);
    return only!;
  };
  /** A delivery the forge would send that launches nothing, signed (GitLab: carrying the token) with `secret`. */
  const deliver = async (secret: string, raw?: string) => {
    const body = raw ?? JSON.stringify(provider === "forge_a" ? gitlabTestPush(WORLD.repo) : { ref: "refs/heads/main", repository: { full_name: WORLD.repo } });
    const hmac = createHmac("sha256", secret).update(body).digest("hex");
    const headers = {
      forge_a: { "x-gitlab-event": "Push Hook", "x-gitlab-token": secret },
      forge_b: { "x-github-event": "push", "x-hub-signature-256": `sha256=${hmac}` },
      forge_c: { "x-forgejo-event": "push", "x-forgejo-signature": hmac },
    }[provider];
    const res = await t.app.inject({
      method: "POST",
      url: `/api/webhooks/${provider}/${repoBot.webhook_id}`,
      payload: body,
      headers: { "content-type": "application/json", ...headers },
    });
    return res.statusCode;
  };

  beforeAll(async () => {
    t = await startTestApp(kind, { SERVICE_BASE_URL: BASE });
    seed = await seedTenancy(t);
    server = (await forge.start()).server;
    hooks = FakeHooks.mount(server, forge.flavour);
    // GitLab's hook test calls the service as GitLab would.
    hooks.receiver = async (url, headers, payload) => {
      const res = await t.app.inject({ method: "POST", url: new URL(url).pathname, headers, payload });
      return { status: res.statusCode, body: res.body };
    };
    const c = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/connections`, {
      provider: forge.alias,
      base_url: server.url,
      token: "tok-0123456789",
    });
    const r = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/repo-bots`, {
      connection_id: c.body.id,
      repo: WORLD.repo,
      bot_ids: ["review-pr"],
    });
    expect(r.status).toBe(200);
    repoBot = r.body;
  });
  afterAll(async () => {
    await server.close();
    await t.close();
  });

  it("is healthy after provisioning: the hook as the forge holds it, at the committed address, on", async () => {
    const report = await health();
    expect(report).toMatchObject({
      repo_bot_id: repoBot.id,
      provider,
      webhook_id: repoBot.webhook_id,
      status: "healthy",
      problems: [],
      hook_id: String(stored().id),
      hook_url: `${BASE}/api/webhooks/${provider}/${repoBot.webhook_id}`,
      hook: { id: String(stored().id), url: stored().url, active: true },
      received: { last_delivery_at: null, refused_since_written: 0, last_refused_at: null },
    });
    expect(report.deliveries).toEqual(provider === "forge_b" ? expect.objectContaining({ checked: 0, failed: 0 }) : null);
    expect(report.hook_written_at).toBe(new Date(t.clock.now()).toISOString());
  });

  it("finds a hook deleted on the forge missing, and repair makes it again with one create and a fresh token", async () => {
    const oldSecret = stored().secret;
    hooks.hooks.set(WORLD.repo, []);
    expect(await health()).toMatchObject({ status: "broken", hook: null });
    expect(codes(await health())).toEqual(["hook_missing"]);
    const writes = hooks.writes().length;
    const repaired = await repair();
    const made = hooks.writes().slice(writes);
    expect(made.filter((w) => w.method === "POST")).toHaveLength(1);
    expect(repaired).toMatchObject({ status: "healthy", problems: [], hook_id: String(stored().id), hook: { active: true } });
    expect(stored().secret).not.toBe(oldSecret);
  });

  it("finds a hook the forge switched off disabled, and repair enables the same hook", async () => {
    const before = stored();
    hooks.disable(before);
    const report = await health();
    expect(report.status).toBe("broken");
    expect(codes(report)).toEqual(["hook_disabled"]);
    expect(report.hook.active).toBe(false);
    if (provider === "forge_a") expect(report.hook).toMatchObject({ alert_status: "disabled", disabled_until: null });
    const repaired = await repair();
    expect(repaired).toMatchObject({ status: "healthy", hook_id: String(before.id), hook: { id: String(before.id), active: true } });
    expect(stored().id).toBe(before.id);
    // GitLab enables it for its test push, which the service answered with the token just written.
    if (provider === "forge_a") expect(hooks.writes().at(-1)!.path).toMatch(/\/hooks\/\d+\/test\/push_events$/);
  });

  it("finds a hook held back for a while disabled, and on GitLab says until when", async () => {
    hooks.disable(stored(), "2026-11-21T13:00:00Z");
    const report = await health();
    expect(codes(report)).toEqual(["hook_disabled"]);
    if (provider === "forge_a") expect(report.problems[0].detail).toContain("until 2026-11-21T13:00:00Z");
    expect((await repair()).status).toBe("healthy");
  });

  it("finds a hook calling another address moved, and one missing events degraded; repair puts both back", async () => {
    const hook = stored();
    hook.url = "https://elsewhere.example/hook";
    expect(codes(await health())).toEqual(["hook_moved"]);
    hook.events = hook.events.slice(1);
    const both = await health();
    expect(codes(both)).toEqual(["hook_moved", "events_missing"]);
    expect(both.status).toBe("broken");
    hook.url = both.hook_url;
    expect(await health()).toMatchObject({ status: "degraded", problems: [{ code: "events_missing" }] });
    const repaired = await repair();
    expect(repaired).toMatchObject({ status: "healthy", hook: { url: repaired.hook_url } });
    expect(stored()).toMatchObject({ id: hook.id, url: repaired.hook_url });
  });

  it("writes a fresh token on repair: the forge's old secret is accepted for the rotation overlap, then refused; the new one accepted", async () => {
    const old = stored().secret;
    t.clock.advance(1_000);
    expect(await deliver("wh_not-the-secret")).toBe(401);
    const refused = await health();
    expect(refused).toMatchObject({ status: "degraded", problems: [{ code: "signature_refused" }] });
    expect(refused.received).toMatchObject({ refused_since_written: 1, last_refused_at: new Date(t.clock.now()).toISOString() });

    t.clock.advance(1_000);
    const repaired = await repair();
    // The refusal came before the secret was written again.
    expect(repaired).toMatchObject({ status: "healthy", received: { refused_since_written: 0 } });
    const fresh = stored().secret;
    expect(fresh).not.toBe(old);
    t.clock.advance(1_000);
    expect(await deliver(old)).toBe(200);
    t.clock.advance(5 * 60_000);
    expect(await deliver(old)).toBe(401);
    expect(await deliver(fresh)).toBe(200);
    const after = await health();
    expect(after.received).toMatchObject({ refused_since_written: 1, last_delivery_at: new Date(t.clock.now()).toISOString() });
    const audited = await t.store.db
      .selectFrom("audit_log")
      .select("action")
      .where("target_id", "=", repoBot.id)
      .where("action", "=", "forge.repair")
      .execute();
    expect(audited.length).toBeGreaterThan(0);
    t.clock.advance(1_000);
    expect((await repair()).status).toBe("healthy");
  });

  it("counts as signature refusals only the deliveries the secret did not prove, not a proven body it could not read", async () => {
    const secret = stored().secret;
    t.clock.advance(1_000);
    expect(await health()).toMatchObject({ status: "healthy", received: { refused_since_written: 0 } });
    // Proven by the secret, but not JSON: refused as unreadable, which says nothing of the secret.
    expect(await deliver(secret, "{not json")).toBe(200);
    const rows = await t.store.db
      .selectFrom("webhook_deliveries")
      .select(["refusal_code", "status"])
      .where("webhook_id", "=", repoBot.webhook_id)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(1)
      .execute();
    expect(rows).toEqual([{ refusal_code: "bad_payload", status: "invalid" }]);
    expect(await health()).toMatchObject({ status: "healthy", problems: [], received: { refused_since_written: 0 } });
    t.clock.advance(1_000);
    expect(await deliver("wh_not-the-secret")).toBe(401);
    const [refused] = await t.store.db
      .selectFrom("webhook_deliveries")
      .select("refusal_code")
      .where("webhook_id", "=", repoBot.webhook_id)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(1)
      .execute();
    expect(refused!.refusal_code).toBe(provider === "forge_a" ? "bad_token" : "bad_signature");
    const listed = await seed.member.api.get(`/api/teams/${seed.team.id}/webhooks/${repoBot.webhook_id}/deliveries`);
    expect(listed.body.deliveries.slice(0, 2).map((d: { refusal_code: string }) => d.refusal_code)).toEqual([refused!.refusal_code, "bad_payload"]);
    expect(await health()).toMatchObject({ status: "degraded", problems: [{ code: "signature_refused" }], received: { refused_since_written: 1 } });
    t.clock.advance(1_000);
    expect((await repair()).status).toBe("healthy");
  });

  it("keeps the stored token when the forge refuses the repair's write", async () => {
    const secret = stored().secret;
    server.fault({ match: /^(PATCH|PUT) .*\/hooks\/\d+$/, times: 1, status: 502 });
    const r = await seed.teamAdmin.api.post(`${path()}/repair`);
    expect(r).toMatchObject({ status: 502, body: { error: "forge_unavailable" } });
    expect(stored().secret).toBe(secret);
    t.clock.advance(1_000);
    expect(await deliver(secret)).toBe(200);
  });

  it("reports a forge it cannot read as unreachable, and says when the credential was refused", async () => {
    server.fault({ match: /^GET .*\/hooks\/\d+$/, times: 1, status: 502 });
    const down = await health();
    expect(down).toMatchObject({ status: "broken", hook: null, problems: [{ code: "forge_unreachable" }] });
    expect(down.problems[0].detail).toContain("502");
    server.fault({ match: /^GET .*\/hooks\/\d+$/, times: 1, status: 401 });
    expect((await health()).problems[0].detail).toContain("refused the connection's credential");
    expect((await health()).status).toBe("healthy");
  });

  it("lets a team member read health, only a team admin repair, and another team neither", async () => {
    expect((await seed.member.api.post(`${path()}/repair`)).status).toBe(403);
    expect((await seed.outsider.api.get(`${path()}/health`)).status).toBe(404);
    expect((await seed.outsider.api.post(`${path()}/repair`)).status).toBe(404);
    expect((await seed.outsider.api.get(`/api/teams/${seed.otherTeam.id}/forge/repo-bots/${repoBot.id}/health`)).status).toBe(404);
    expect((await seed.member.api.get(`${path("rbt_nope")}/health`)).status).toBe(404);
    expect((await seed.teamAdmin.api.post(`${path("rbt_nope")}/repair`)).status).toBe(404);
  });

  it("counts health reports by status and repairs by forge", async () => {
    const metrics = (await seed.member.api.get("/metrics")).body as string;
    expect(metrics).toMatch(/service_forge_hook_health_checks_total\{status="healthy"\} [1-9]/);
    expect(metrics).toMatch(/service_forge_hook_health_checks_total\{status="broken"\} [1-9]/);
    expect(metrics).toMatch(new RegExp(`service_forge_hook_repairs_total\\{provider="${provider}"\\} [1-9]`));
  });
});

describe.each(storeKinds())("GitHub's deliveries in a hook's health on %s", (kind) => {
  it("names the forge's failing deliveries, and clears once the latest succeeds", async () => {
    const t = await startTestApp(kind, { SERVICE_BASE_URL: BASE });
    const gh = await FakeGitHub.start();
    try {
      const seed = await seedTenancy(t);
      const hooks = FakeHooks.mount(gh.server, "github");
      const c = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/connections`, { provider: "github", base_url: gh.server.url, token: "ghp_x" });
      const rb = (await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/repo-bots`, { connection_id: c.body.id, repo: WORLD.repo })).body;
      const health = async () => (await seed.member.api.get(`/api/teams/${seed.team.id}/forge/repo-bots/${rb.id}/health`)).body;
      const hook = hooks.of()[0]!;
      hooks.delivered(hook, [200, 502, 401]);
      const failing = await health();
      expect(failing).toMatchObject({
        status: "degraded",
        problems: [{ code: "deliveries_failing" }],
        deliveries: { checked: 3, failed: 2, failing_streak: 2, latest_failure: { status_code: 401, delivered_at: "2026-11-21T11:02:00.000Z" } },
      });
      expect(failing.problems[0].detail).toContain("was answered 401");
      expect(gh.server.requests.at(-1)!.path).toMatch(/\/deliveries\?per_page=10$/);
      hooks.delivered(hook, [200], Date.UTC(2026, 10, 21, 11, 30));
      expect(await health()).toMatchObject({ status: "healthy", deliveries: { checked: 4, failing_streak: 0, latest_success_at: "2026-11-21T11:30:00.000Z" } });
    } finally {
      await gh.server.close();
      await t.close();
    }
  });
});
