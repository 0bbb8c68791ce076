import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../test-support/fake-forges/fake-github.js";
import { seedTenancy, startTestApp, type TestApp } from "../../test-support/harness.js";

describe("a tenant's failing forge connection in the log", () => {
  let t: TestApp;
  let s: Awaited<ReturnType<typeof seedTenancy>>;
  let gh: FakeGitHub;
  beforeAll(async () => {
    t = await startTestApp("sqlite");
    s = await seedTenancy(t);
    gh = await FakeGitHub.start();
  });
  afterAll(async () => {
    await gh.server.close();
    await t.close();
  });

  it("is one warn line naming the connection, and no error line, whatever the library printed", async () => {
    gh.server.fault({ match: /GET \/api\/v3\/user$/, times: 10, status: 500, body: { message: "boom" } });
    const before = t.logs.length;
    const r = await s.teamAdmin.api.post(`/api/teams/${s.team.id}/forge/connections`, {
      provider: "github",
      base_url: gh.server.url,
      token: "ghp_probe-0123456789",
    });
    expect(r.status).toBe(502);
    const lines = t.logs.slice(before).map((l) => JSON.parse(l) as { level: number; msg: string; connection_id?: string; team_id?: string });
    expect(gh.server.requests.length).toBeGreaterThan(1); // the library retried, and may have said so
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    // Beside the HTTP layer's one line for the 502 it answered.
    const warned = lines.filter((l) => l.level === 40 && l.msg !== "request failed");
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ msg: "forge connection refused by the forge", team_id: s.team.id, connection_id: expect.stringMatching(/^fcn_/) });
  });
});
