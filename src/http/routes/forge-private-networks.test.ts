import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../test-support/fake-forges/fake-github.js";
import { FakeGitLab } from "../../test-support/fake-forges/fake-gitlab.js";
import { seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";

describe.each(storeKinds())("a connection to a private network, by default, on %s", (kind) => {
  let t: TestApp;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;
  let gh: FakeGitHub;
  let gl: FakeGitLab;

  beforeAll(async () => {
    // The operator's default: no private network allowed.
    t = await startTestApp(kind, { SERVICE_FORGE_ALLOWED_NETWORKS: "" });
    seed = await seedTenancy(t);
    gh = await FakeGitHub.start();
    gl = await FakeGitLab.start();
  });
  afterAll(async () => {
    await gh.server.close();
    await gl.server.close();
    await t.close();
  });

  const path = () => `/api/teams/${seed.team.id}/forge/connections`;
  const connect = (provider: string, base_url: string) => seed.teamAdmin.api.post(path(), { provider, base_url, token: "tok-0123456789" });

  it("is refused with one answer, whatever listens there, and nothing is stored or sent", async () => {
    const port = (url: string) => new URL(url).port;
    const bodies = new Set<string>();
    for (const [provider, fake] of [
      ["github", gh],
      ["gitlab", gl],
    ] as const) {
      for (const host of ["127.0.0.1", "localhost", "0x7f000001", "2130706433", "127.1", "[::ffff:127.0.0.1]", "169.254.169.254", "10.0.0.1", "[fe80::1]"]) {
        const r = await connect(provider, `http://${host}:${port(fake.server.url)}`);
        expect(r.status, host).toBe(422);
        expect(r.body.error).toBe("forge_address_refused");
        bodies.add(JSON.stringify({ ...r.body, request_id: undefined }));
      }
      const closed = await connect(provider, "http://127.0.0.1:9");
      bodies.add(JSON.stringify({ ...closed.body, request_id: undefined }));
      expect(fake.server.requests).toHaveLength(0);
    }
    expect(bodies.size).toBe(1);
    expect((await seed.member.api.get(path())).body.connections).toEqual([]);
  }, 120_000); // octokit retries each refusal once after a second
});
