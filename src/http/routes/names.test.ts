import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenancy, startTestApp, type TestApp } from "../../test-support/harness.js";

const BAD = [
  ["NUL", "a\u0000b"],
  ["CR LF", "a\r\nb"],
  ["ANSI escape", "\u001b[2Jx"],
  ["bidi override", "evil\u202etxt.exe"],
  ["isolate", "\u2066x\u2069"],
  ["lone surrogate", "a\ud800"],
  ["whitespace only", "   "],
  ["201 characters", "n".repeat(201)],
] as const;

/** One name rule for every named resource, at create and at rename (the rule's cases: core/names.test.ts). */
describe("names of every resource", () => {
  let t: TestApp;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;
  beforeAll(async () => {
    t = await startTestApp("sqlite");
    seed = await seedTenancy(t);
  });
  afterAll(() => t.close());

  const creates = () =>
    [
      ["org", (name: string) => seed.admin.post("/api/admin/orgs", { name })],
      ["team", (name: string) => seed.orgAdmin.api.post(`/api/orgs/${seed.org.id}/teams`, { name })],
      ["user", (name: string) => seed.admin.post("/api/admin/users", { login: `u${Math.random().toString(36).slice(2, 10)}`, name })],
      ["token", (name: string) => seed.member.api.post("/api/users/me/tokens", { name })],
      ["webhook", (name: string) => seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"], name })],
      ["team key", (name: string) => seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/keys`, { provider: "openai", name, secret: "sk-secret-value-1234" })],
      ["org key", (name: string) => seed.orgAdmin.api.post(`/api/orgs/${seed.org.id}/keys`, { provider: "openai", name, secret: "sk-secret-value-1234" })],
      ["bot", (name: string) => seed.orgAdmin.api.post(`/api/orgs/${seed.org.id}/bots`, { id: `b${Math.random().toString(36).slice(2, 10)}`, name })],
    ] as const;

  it("refuses control, bidi, malformed, blank and overlong names with 400 naming the field, everywhere", async () => {
    for (const [what, create] of creates()) {
      for (const [why, name] of BAD) {
        const r = await create(name);
        expect([r.status, r.body.error, r.body.field], `${what}: ${why}`).toEqual([400, "invalid_request", "name"]);
      }
    }
  });

  it("stores a name trimmed, and returns it as stored", async () => {
    for (const [what, create] of creates()) {
      const r = await create("  Ünïcode ☕ name  ");
      expect(r.status, what).toBe(201);
      const body = r.body.config ?? r.body;
      expect(body.name, what).toBe("Ünïcode ☕ name");
    }
  });

  it("applies the rule to renames of orgs, teams and webhooks", async () => {
    const hook = (await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] })).body.config;
    const renames = [
      (name: string) => seed.admin.patch(`/api/admin/orgs/${seed.org.id}`, { name }),
      (name: string) => seed.orgAdmin.api.patch(`/api/teams/${seed.team.id}`, { name }),
      (name: string) => seed.teamAdmin.api.patch(`/api/teams/${seed.team.id}/webhooks/${hook.id}`, { name }),
    ];
    for (const rename of renames) {
      expect((await rename("a\u001b[0m")).body.field).toBe("name");
      expect((await rename(" Renamed ")).body.name).toBe("Renamed");
    }
  });
});
