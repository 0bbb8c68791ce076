import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../test-support/fake-forges/fake-github.js";
import { FakeHooks } from "../../test-support/fake-forges/fake-hooks.js";
import { client, seedTenancy, startTestApp, type TestApp } from "../../test-support/harness.js";

/** Routes reachable without a token: everything else must answer an anonymous call with 401. */
const PUBLIC = new Set([
  "GET /",
  "GET /healthz",
  "GET /readyz",
  "GET /metrics",
  "GET /api/openapi.json",
  "POST /api/webhooks/:provider/:id",
  // Signing in and spending a reset token are how a caller without a token gets one.
  "POST /api/auth/login",
  "POST /api/auth/password-reset/confirm",
  // The console authenticates itself with its cookie (console.test.ts walks its pages as an intruder).
  "GET /console/style.css",
  "GET /console",
  "GET /console/teams/:id",
  "GET /console/teams/:id/webhooks/:webhook_id",
  "GET /console/teams/:id/webhooks/:webhook_id/deliveries/:delivery_id",
  "GET /console/teams/:id/runs",
  "GET /console/teams/:id/ledger",
  "GET /console/teams/:id/forge",
  "GET /console/teams/:id/forge/repo-bots/:repo_bot_id",
  "GET /console/runs/:id",
  "GET /console/runs/:id/stream",
  "GET /console/run.js",
  "GET /console/orgs/:id/usage",
  "GET /console/orgs/:id/teams",
  "POST /console/sign-in",
  "POST /console/runs/:id/answer",
  "POST /console/sign-out",
  "GET /console/password",
  "POST /console/password",
  "POST /console/runs/:id/cancel",
  "POST /console/runs/:id/resume",
  "POST /console/teams/:id/webhooks/:webhook_id/rotate",
  "POST /console/teams/:id/webhooks/:webhook_id/deliveries/:delivery_id/redeliver",
  "POST /console/teams/:id/webhooks/:webhook_id/ping",
  "POST /console/teams/:id/board",
  "POST /console/teams/:id/forge/repo-bots/:repo_bot_id/gate",
]);

const sendsBody = (method: string) => method !== "GET" && method !== "DELETE";

/** The statuses that refuse an intruder: the runner protocol takes runner tokens only, so a user's token is refused as unauthenticated. */
const refusedWith = (url: string) => (url.startsWith("/api/runner/") ? [401] : [403, 404]);

/** Org A's resources, one of each kind a route can name, and the intruder's own user id. */
interface OrgA {
  /** The resource a route under each prefix names by its `:id`. */
  idFor: Record<string, string>;
  hook: string;
  teamKey: string;
  secret: string;
  orgKey: string;
  bot: string;
  schedule: string;
  card: string;
  connection: string;
  repoBot: string;
  runner: string;
  team: string;
  member: string;
  intruder: string;
}

/** A route's URL with each parameter naming one of org A's resources. */
function intruderUrl(r: { method: string; url: string }, a: OrgA): string {
  const key = `${r.method} ${r.url}`;
  const prefix = Object.keys(a.idFor)
    .filter((p) => r.url.startsWith(`${p}/:id`))
    .sort((x, y) => y.length - x.length)[0];
  return (
    r.url
      .replace(":id", prefix ? a.idFor[prefix]! : ":id")
      // Promoting itself, or removing someone of org A.
      .replace(":user_id", r.method === "PUT" ? a.intruder : a.member)
      .replace(":webhook_id", a.hook)
      .replace(":delivery_id", "dlv_none")
      .replace(":key_id", r.url.startsWith("/api/orgs") ? a.orgKey : a.teamKey)
      .replace(":secret_id", a.secret)
      .replace(":bot_id", a.bot)
      .replace(":schedule_id", a.schedule)
      .replace(":card_id", a.card)
      .replace(":connection_id", a.connection)
      .replace(":repo_bot_id", a.repoBot)
      .replace(":runner_id", a.runner)
      .replace(":n", "1")
      .concat(key === "GET /api/v1/triggers" ? `?team_id=${a.team}` : "")
      .concat(key === "GET /api/teams/:id/forge/repos" ? `?connection_id=${a.connection}` : "")
  );
}

describe("every registered route", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp("sqlite");
  });
  afterAll(() => t.close());

  it("answers an anonymous call with 401 unless public by design", async () => {
    expect(t.routes.length).toBeGreaterThan(15);
    for (const r of t.routes) {
      const key = `${r.method} ${r.url}`;
      const url = r.url.replace(/:([a-z_]+)/g, "x_1");
      const res = await t.app.inject({ method: r.method as "GET", url, payload: sendsBody(r.method) ? {} : undefined });
      expect(r.public, `${key} public flag`).toBe(PUBLIC.has(key));
      const refusedForToken = res.statusCode === 401 && JSON.parse(res.body).error === "unauthenticated";
      expect(refusedForToken, key).toBe(!PUBLIC.has(key));
    }
  });

  it("answers a user of another org with no 2xx on any route naming this org's resources, and changes nothing", async () => {
    const seed = await seedTenancy(t);
    const { admin, org, team, member, teamAdmin, orgAdmin } = seed;
    // Org A's resources, one of each kind a route can name.
    const hook = (await teamAdmin.api.post(`/api/teams/${team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] })).body.config.id;
    const teamKey = (await teamAdmin.api.post(`/api/teams/${team.id}/keys`, { provider: "openai", name: "k", secret: "sk-team" })).body.id;
    const secret = (await teamAdmin.api.post(`/api/teams/${team.id}/secrets`, { name: "S_ONE", value: "v" })).body.id;
    const orgKey = (await orgAdmin.api.post(`/api/orgs/${org.id}/keys`, { provider: "openai", name: "k", secret: "sk-org" })).body.id;
    const bot = (await orgAdmin.api.post(`/api/orgs/${org.id}/bots`, { id: "triage", name: "Triage", description: "x" })).body.id;
    const run = (await member.api.post("/api/runs", { team_id: team.id, bot: "review-pr", vars: {} })).body.id;
    const memberToken = (await member.api.get("/api/users/me/tokens")).body.tokens[0].id;
    const reset = (await admin.post(`/api/admin/users/${member.id}/password-reset`)).body.token;
    await client(t.app).post("/api/auth/password-reset/confirm", { token: reset, password: "a long enough password" });
    const memberSession = client(t.app, (await client(t.app).post("/api/auth/login", { login: "member", password: "a long enough password" })).body.token);
    const session = (await memberSession.get("/api/users/me/sessions")).body.sessions[0].id;
    const schedule = (await teamAdmin.api.post(`/api/teams/${team.id}/schedules`, { name: "n", cron: "0 2 * * *", bot: "review-pr" })).body.id;
    const trigger = (await teamAdmin.api.post("/api/v1/triggers", { team_id: team.id, name: "n", event: "e", bot: "review-pr" })).body.id;
    const card = (await member.api.post(`/api/teams/${team.id}/board/cards`, { title: "c", bot: "improve", labels: ["needs:approval"] })).body.id;
    const runner = (await orgAdmin.api.post(`/api/orgs/${org.id}/runners`, { name: "org A's runner" })).body.id;
    const platformRunner = (await admin.post("/api/admin/runners", { name: "the platform's runner" })).body.id;
    const gh = await FakeGitHub.start();
    const forgeHooks = FakeHooks.mount(gh.server, "github");
    const connection = (await teamAdmin.api.post(`/api/teams/${team.id}/forge/connections`, { provider: "github", base_url: gh.server.url, token: "ghp_a" }))
      .body.id;
    const repoBot = (await teamAdmin.api.post(`/api/teams/${team.id}/forge/repo-bots`, { connection_id: connection, repo: "acme/widgets" })).body.id;
    for (const id of [hook, teamKey, secret, orgKey, bot, run, memberToken, session, schedule, trigger, card, connection, repoBot, runner])
      expect(id).toEqual(expect.any(String));

    // The intruder: admin of an org and a team of its own.
    const orgB = (await admin.post("/api/admin/orgs", { name: "Globex" })).body;
    const teamB = (await admin.post(`/api/orgs/${orgB.id}/teams`, { name: "B" })).body;
    const user = (await admin.post("/api/admin/users", { login: "intruder" })).body;
    await admin.put(`/api/orgs/${orgB.id}/members/${user.id}`, { role: "admin" });
    await admin.put(`/api/teams/${teamB.id}/members/${user.id}`, { role: "admin" });
    const intruder = client(t.app, (await admin.post(`/api/admin/users/${user.id}/tokens`, { name: "t" })).body.token);

    const idFor: Record<string, string> = {
      "/api/admin/orgs": org.id,
      "/api/orgs": org.id,
      "/api/teams": team.id,
      "/api/runs": run,
      "/api/users/me/tokens": memberToken,
      "/api/users/me/sessions": session,
      "/api/admin/users": member.id,
      "/api/v1/triggers": trigger,
      "/api/admin/runners": platformRunner,
      "/api/runner/v1/runs": run,
    };
    const bodies: Record<string, unknown> = {
      "POST /api/admin/orgs": { name: "x" },
      "PATCH /api/admin/orgs/:id": { status: "suspended" },
      "POST /api/orgs/:id/teams": { name: "x" },
      "PUT /api/orgs/:id/members/:user_id": { role: "admin" },
      "PATCH /api/teams/:id": { max_concurrent_runs: 1 },
      "PUT /api/teams/:id/members/:user_id": { role: "admin" },
      "POST /api/admin/users": { login: "x" },
      "PATCH /api/admin/users/:id": { active: false },
      "POST /api/admin/users/:id/tokens": { name: "x" },
      "PUT /api/admin/users/:id/password": { password: "the intruder's choice" },
      "POST /api/teams/:id/webhooks": { provider: "forge_b", bot_ids: ["review-pr"] },
      "PATCH /api/teams/:id/webhooks/:webhook_id": { enabled: false },
      "POST /api/teams/:id/keys": { provider: "openai", name: "x", secret: "s" },
      "POST /api/teams/:id/secrets": { name: "S_TWO", value: "v" },
      "POST /api/orgs/:id/keys": { provider: "openai", name: "x", secret: "s" },
      "POST /api/orgs/:id/bots": { id: "spy", name: "Spy" },
      "POST /api/runs": { team_id: team.id, bot: "review-pr", vars: {} },
      "POST /api/teams/:id/schedules": { name: "x", cron: "* * * * *", bot: "review-pr" },
      "PATCH /api/teams/:id/schedules/:schedule_id": { enabled: false },
      "POST /api/v1/triggers": { team_id: team.id, name: "x", event: "e", bot: "review-pr" },
      "PATCH /api/v1/triggers/:id": { enabled: false },
      "POST /api/v1/triggers/emit": { team_id: team.id, event: "e" },
      "POST /api/teams/:id/board/cards": { title: "x", bot: "improve" },
      "POST /api/teams/:id/board/cards/:card_id/move": { column: "done" },
      "POST /api/teams/:id/forge/connections": { provider: "github", base_url: gh.server.url, token: "ghp_b" },
      "PATCH /api/teams/:id/forge/connections/:connection_id": { webhook_base_url: "https://intruder.example" },
      "POST /api/runs/:id/answer": { answer: "yes" },
      "POST /api/teams/:id/forge/repo-bots": { connection_id: connection, repo: "acme/widgets", webhook_base_url: "https://intruder.example" },
      "POST /api/admin/runners": { name: "x" },
      "POST /api/orgs/:id/runners": { name: "x" },
    };
    // Routes about the caller alone, which the intruder may use.
    const own = new Set([
      "GET /api/users/me",
      "POST /api/users/me/tokens",
      "GET /api/users/me/tokens",
      "PUT /api/users/me/password",
      "GET /api/users/me/sessions",
      "POST /api/auth/logout",
    ]);
    const orgA: OrgA = {
      idFor,
      hook,
      teamKey,
      secret,
      orgKey,
      bot,
      schedule,
      card,
      connection,
      repoBot,
      runner,
      team: team.id,
      member: member.id,
      intruder: user.id,
    };
    for (const r of t.routes) {
      const key = `${r.method} ${r.url}`;
      if (PUBLIC.has(key) || own.has(key)) continue;
      const url = intruderUrl(r, orgA);
      expect(url, key).not.toContain(":");
      const res = await intruder.call(r.method, url, sendsBody(r.method) ? (bodies[key] ?? {}) : undefined);
      expect(refusedWith(r.url), `${key}: ${res.status} ${JSON.stringify(res.body)}`).toContain(res.status);
    }

    // Org A is as it was.
    expect((await admin.get(`/api/admin/orgs/${org.id}`)).body.status).toBe("active");
    expect((await teamAdmin.api.get(`/api/teams/${team.id}/webhooks/${hook}`)).body.enabled).toBe(true);
    expect((await member.api.get(`/api/runs/${run}`)).body.status).toBe("queued");
    expect((await member.api.get(`/api/teams/${team.id}/schedules/${schedule}`)).body.enabled).toBe(true);
    expect((await member.api.get(`/api/v1/triggers/${trigger}`)).body.enabled).toBe(true);
    expect((await member.api.get(`/api/teams/${team.id}/board/cards/${card}`)).body).toMatchObject({ column: "ready", labels: ["needs:approval"] });
    expect(await t.store.db.selectFrom("runs").select("id").where("team_id", "=", team.id).execute()).toHaveLength(1);
    expect((await teamAdmin.api.get(`/api/teams/${team.id}/keys`)).body.keys.map((k: { id: string }) => k.id)).toContain(teamKey);
    expect((await member.api.get("/api/users/me/tokens")).body.tokens.map((k: { id: string }) => k.id)).toContain(memberToken);
    expect((await member.api.get("/api/users/me")).body.active).toBe(true);
    expect((await memberSession.get("/api/users/me/sessions")).body.sessions.map((x: { id: string }) => x.id)).toEqual([session]);
    expect((await teamAdmin.api.get(`/api/teams/${team.id}/forge/connections/${connection}`)).body.webhook_base_url).toBeNull();
    expect((await teamAdmin.api.get(`/api/teams/${team.id}/forge/repo-bots`)).body.repo_bots.map((r: { id: string }) => r.id)).toEqual([repoBot]);
    expect((await orgAdmin.api.get(`/api/orgs/${org.id}/runners`)).body.runners).toEqual([expect.objectContaining({ id: runner, status: "offline" })]);
    expect((await admin.get("/api/admin/runners")).body.runners).toEqual([expect.objectContaining({ id: platformRunner, status: "offline" })]);
    expect(forgeHooks.of()).toHaveLength(1);
    expect(forgeHooks.writes()).toHaveLength(1);
    await gh.server.close();
    expect((await intruder.get(`/api/teams/${team.id}`)).status).toBe(404);
    expect((await intruder.get(`/api/orgs/${org.id}/teams`)).status).toBe(404);
  });

  it("serves health, readiness, metrics and the OpenAPI document", async () => {
    const anon = client(t.app);
    expect((await anon.get("/healthz")).body).toEqual({ status: "ok" });
    expect((await anon.get("/readyz")).body).toMatchObject({ status: "ready", store: "sqlite" });
    const metrics = await anon.get("/metrics");
    expect(metrics.status).toBe(200);
    for (const name of ["service_webhook_deliveries_total", "service_launch_denied_total", "service_dlq_depth", "service_runs_retry_sweeps_total"]) {
      expect(metrics.body).toContain(`# TYPE ${name}`);
    }
    const doc = await anon.get("/api/openapi.json");
    expect(doc.body.openapi).toBe("3.1.0");
    expect(Object.keys(doc.body.paths)).toContain("/api/admin/orgs");
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(["/api/runner/v1/claim", "/api/runner/v1/runs/{id}/finish"]));
    expect(doc.body.paths["/api/runner/v1/claim"].post.security).toEqual([{ runner: [] }]);
  });

  it("answers unknown paths with the error shape", async () => {
    const r = await client(t.app).get("/nope");
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: "not_found" });
  });
});
