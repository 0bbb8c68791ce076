import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../test-support/fake-forges/fake-github.js";
import { seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";

/** Single-line fields refuse these; names too (core/names.test.ts holds the rule's cases). */
const BAD_LINE = [
  ["ANSI escape", "x\u001b[2J"],
  ["CR LF", "a\r\nb"],
  ["bidi override", "evil\u202etxt"],
  ["C1 control", "a\u0085b"],
  ["lone surrogate", "a\ud800"],
  ["zero-width space", "a\u200bb"],
] as const;

describe.each(storeKinds())("one text rule for every stored field on %s", (kind) => {
  let t: TestApp;
  let s: Seed;
  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
  });
  afterAll(() => t.close());

  const run = (body: Record<string, unknown>) => s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr", ...body });
  const card = (body: Record<string, unknown>) => s.member.api.post(`/api/teams/${s.team.id}/board/cards`, { title: "Fix it", bot: "review-pr", ...body });
  const schedule = (body: Record<string, unknown>) =>
    s.teamAdmin.api.post(`/api/teams/${s.team.id}/schedules`, { name: "nightly", cron: "0 2 * * *", bot: "review-pr", ...body });
  const trigger = (body: Record<string, unknown>) =>
    s.teamAdmin.api.post("/api/v1/triggers", { team_id: s.team.id, name: `sub ${Math.random()}`, event: "deploy.finished", bot: "review-pr", ...body });

  it("refuses control, line-break, bidi, format characters and lone surrogates in every single-line field, naming it", async () => {
    const cases = [
      ["run repo_url", (v: string) => run({ repo_url: `https://forge.example/${v}` }), "repo_url"],
      ["run repo_ref", (v: string) => run({ repo_ref: v }), "repo_ref"],
      ["run project_path", (v: string) => run({ project_path: v }), "project_path"],
      ["card title", (v: string) => card({ title: v }), "title"],
      ["card repo_url", (v: string) => card({ repo_url: v }), "repo_url"],
      ["schedule name", (v: string) => schedule({ name: v }), "name"],
      ["schedule repo_ref", (v: string) => schedule({ repo_ref: v }), "repo_ref"],
      ["trigger name", (v: string) => trigger({ name: v }), "name"],
      ["trigger project_path", (v: string) => trigger({ project_path: v }), "project_path"],
    ] as const;
    for (const [what, send, field] of cases) {
      for (const [why, value] of BAD_LINE) {
        const r = await send(value);
        expect([r.status, r.body.error, r.body.field], `${what}: ${why}`).toEqual([400, "invalid_request", field]);
      }
    }
    expect(await t.store.db.selectFrom("runs").select("id").where("team_id", "=", s.team.id).execute()).toEqual([]);
  });

  it("lets variables' values and a card's body keep line feeds and tabs, and nothing else below U+0020", async () => {
    expect((await run({ vars: { NOTE: "line one\n\tline two" } })).status).toBe(201);
    expect((await card({ body: "steps:\n\t1. run it" })).status).toBe(201);
    for (const value of ["a\rb", "\u001b[31mred", "a\u0085b", "a\ud800"]) {
      expect((await run({ vars: { NOTE: value } })).body.field, JSON.stringify(value)).toBe("vars.NOTE");
      expect((await card({ body: value })).body.field, JSON.stringify(value)).toBe("body");
    }
  });

  it("keeps ordinary text as given", async () => {
    const r = await run({ repo_url: "https://forge.example/équipe/東京", repo_ref: "feature/☕", project_path: "a b/c" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ repo_url: "https://forge.example/équipe/東京", repo_ref: "feature/☕", project_path: "a b/c" });
  });
});

describe.each(storeKinds())("POST /api/runs connection_id on %s", (kind) => {
  let t: TestApp;
  let s: Seed;
  let gh: FakeGitHub;
  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
    gh = await FakeGitHub.start();
  });
  afterAll(async () => {
    await gh.server.close();
    await t.close();
  });

  const connect = (api: Seed["member"]["api"], teamId: string) =>
    api.post(`/api/teams/${teamId}/forge/connections`, { provider: "github", base_url: gh.server.url, token: "ghp_connection-token-0123456789" });

  it("takes a connection of the run's team, and answers another team's, an unknown one or not-an-id as not found", async () => {
    const ours = (await connect(s.teamAdmin.api, s.team.id)).body.id as string;
    const theirs = (await connect(s.outsider.api, s.otherTeam.id)).body.id as string;
    expect(ours).toMatch(/^fcn_/);
    expect(theirs).toMatch(/^fcn_/);
    // A run with a connection names its repository (the forge token is for that one alone).
    const launch = (connection_id: string) =>
      s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr", connection_id, project_path: "acme/widgets" });
    const r = await launch(ours);
    expect(r.status).toBe(201);
    for (const id of [theirs, "fcn_doesnotexist", "not-an-id"]) {
      const refused = await launch(id);
      expect([refused.status, refused.body.error], id).toEqual([404, "not_found"]);
    }
    const stored = await t.store.db.selectFrom("runs").select("connection_id").where("team_id", "=", s.team.id).execute();
    expect(stored.map((x) => x.connection_id)).toEqual([ours]);
  });
});
