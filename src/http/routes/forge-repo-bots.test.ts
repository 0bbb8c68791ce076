import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { fixture, githubExample, loadGithubExamples } from "../../intake/fixtures/fixtures.js";
import { FakeForgejo } from "../../test-support/fake-forges/fake-forgejo.js";
import { FakeGitHub } from "../../test-support/fake-forges/fake-github.js";
import { FakeGitLab } from "../../test-support/fake-forges/fake-gitlab.js";
import { FakeHooks } from "../../test-support/fake-forges/fake-hooks.js";
import type { FakeServer } from "../../test-support/fake-forges/fake-server.js";
import { seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";
import { secretsFromRow } from "../../webhooks/webhook-record.js";
import { matchWebhookToken, tokenMatches } from "../../webhooks/webhook-token.js";

const BASE = "https://gw.example";
const FORGES = [
  { provider: "forge_b", alias: "github", flavour: "github", start: () => FakeGitHub.start(), repo: "acme/widgets" },
  { provider: "forge_a", alias: "gitlab", flavour: "gitlab", start: () => FakeGitLab.start(), repo: "acme/widgets" },
  { provider: "forge_c", alias: "forgejo", flavour: "forgejo", start: () => FakeForgejo.start(), repo: "acme/widgets" },
] as const;
const cases = storeKinds().flatMap((kind) => FORGES.map((forge) => [kind, forge.provider, forge] as const));

describe.each(cases)("repo-bots on %s for %s", (kind, _p, forge) => {
  let t: TestApp;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;
  let server: FakeServer;
  let hooks: FakeHooks;
  let connectionId = "";

  const repoBots = () => `/api/teams/${seed.team.id}/forge/repo-bots`;
  const provision = (body: Record<string, unknown> = {}) => seed.teamAdmin.api.post(repoBots(), { connection_id: connectionId, repo: forge.repo, ...body });
  const pin = (v: string) => seed.teamAdmin.api.patch(`/api/teams/${seed.team.id}/forge/connections/${connectionId}`, { webhook_base_url: v });
  /** The forge's hook secret is the token the stored config verifies. */
  const sharesToken = async (webhookId: string, secret: string) => {
    const row = await t.store.db.selectFrom("webhooks").selectAll().where("id", "=", webhookId).executeTakeFirstOrThrow();
    return tokenMatches(secretsFromRow(row), secret);
  };

  beforeAll(async () => {
    t = await startTestApp(kind, { SERVICE_BASE_URL: BASE });
    seed = await seedTenancy(t);
    server = (await forge.start()).server;
    hooks = FakeHooks.mount(server, forge.flavour);
    hooks.hooks.set("acme/gadgets", []);
    const c = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/connections`, {
      provider: forge.alias,
      base_url: server.url,
      token: "tok-0123456789abcdef",
    });
    expect(c.status).toBe(201);
    connectionId = c.body.id;
  });
  afterAll(async () => {
    await server.close();
    await t.close();
  });

  it("provisions: exactly one hook at the delivery address, sharing a fresh token with a config marked provisioned_by", async () => {
    const r = await provision({ bot_ids: ["review-pr"], hold_labels: ["wip"] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      repo: forge.repo,
      forge_written: true,
      webhook: { provider: forge.provider, provisioned_by: r.body.id, hold_labels: ["wip"] },
    });
    expect(r.body.id).toMatch(/^rbt_/);
    const [hook, ...more] = hooks.of(forge.repo);
    expect(more).toEqual([]);
    expect(hook!.url).toBe(`${BASE}/api/webhooks/${forge.provider}/${r.body.webhook_id}`);
    expect(hook!.events.length).toBeGreaterThan(1);
    expect(r.body).toMatchObject({ hook_id: String(hook!.id), hook_url: hook!.url });
    expect(await sharesToken(r.body.webhook_id, hook!.secret)).toBe(true);
    expect(JSON.stringify(r.body)).not.toContain(hook!.secret);
    expect(hooks.writes()).toHaveLength(1);
  });

  it("keeps each stored field a body omits, and takes each it names (the spec's repo-bots table)", async () => {
    const set = {
      launch_vars: { depth: "full" },
      overlap: "skip",
      auto_fix_on_gate_failure: true,
      hold_labels: ["wip", "hold"],
      label_allowlist: ["bug"],
      gate_context: "ci/build",
    };
    const shown = (b: any) => ({
      launch_vars: b.webhook.launch_vars,
      overlap: b.webhook.overlap,
      auto_fix_on_gate_failure: b.auto_fix_on_gate_failure,
      hold_labels: b.webhook.hold_labels,
      label_allowlist: b.webhook.label_allowlist,
      gate_context: b.gate_context,
    });
    expect(shown((await provision(set)).body)).toEqual(set);
    expect(shown((await provision()).body)).toEqual(set);
    const changed = {
      launch_vars: { depth: "shallow" },
      overlap: "supersede",
      auto_fix_on_gate_failure: false,
      hold_labels: ["wip"],
      label_allowlist: [],
      gate_context: "ci/test",
    };
    for (const [field, value] of Object.entries(changed)) {
      expect(shown((await provision({ [field]: value })).body)[field as keyof typeof set], field).toEqual(value);
    }
    expect(shown((await provision()).body)).toEqual(changed);
    await provision({ overlap: "allow", hold_labels: ["wip"], label_allowlist: [] });
  });

  it("clears the gate with an empty gate_context: none (null) in the answer and the store, as a blank one is", async () => {
    const stored = async (id: string) =>
      (await t.store.db.selectFrom("repo_bots").select("gate_context").where("id", "=", id).executeTakeFirstOrThrow()).gate_context;
    const set = (await provision({ gate_context: "ci/build" })).body;
    expect([set.gate_context, await stored(set.id)]).toEqual(["ci/build", "ci/build"]);
    for (const none of ["", "   "]) {
      expect((await provision({ gate_context: "ci/build" })).body.gate_context).toBe("ci/build");
      const cleared = (await provision({ gate_context: none })).body;
      expect([cleared.gate_context, await stored(cleared.id)], JSON.stringify(none)).toEqual([null, null]);
    }
    // A context stored empty before empty meant none is shown as none.
    await t.store.db.updateTable("repo_bots").set({ gate_context: "" }).where("id", "=", set.id).execute();
    expect((await provision()).body.gate_context).toBeNull();
    await provision({ gate_context: "ci/test" });
  });

  it("writes nothing to the forge when nothing moved", async () => {
    const writes = hooks.writes().length;
    const requests = server.requests.length;
    const r = await provision({ label_allowlist: ["bug"] });
    expect(r.body).toMatchObject({ forge_written: false, webhook: { label_allowlist: ["bug"], hold_labels: ["wip"] } });
    expect(hooks.writes()).toHaveLength(writes);
    expect(server.requests).toHaveLength(requests);
  });

  it("rewrites the same hook in place, with a fresh token, when the base moved", async () => {
    const before = (await provision()).body;
    const oldSecret = hooks.of(forge.repo)[0]!.secret;
    expect((await pin("https://hooks.example")).status).toBe(200);
    const r = await provision();
    expect(r.body).toMatchObject({ forge_written: true, id: before.id, webhook_id: before.webhook_id, hook_id: before.hook_id });
    const [hook, ...more] = hooks.of(forge.repo);
    expect(more).toEqual([]);
    expect(hook!.url).toBe(`https://hooks.example/api/webhooks/${forge.provider}/${before.webhook_id}`);
    expect(hook!.secret).not.toBe(oldSecret);
    expect(await sharesToken(before.webhook_id, hook!.secret)).toBe(true);
    expect(await sharesToken(before.webhook_id, oldSecret)).toBe(false);
  });

  it("repairs a crash between the forge write and the commit on the next provision, with no second hook", async () => {
    for (const repo of [forge.repo, "acme/gadgets"]) {
      if (repo === forge.repo) await pin("https://moved.example");
      const writes = hooks.writes().length;
      const tx = t.store.tx.bind(t.store);
      const spy = vi.spyOn(t.store, "tx").mockImplementation((fn) => (hooks.writes().length > writes ? Promise.reject(new Error("crashed")) : tx(fn)));
      const crashed = await provision({ repo });
      spy.mockRestore();
      expect(crashed.status).toBe(500);
      expect(hooks.of(repo)).toHaveLength(1);
      const r = await provision({ repo });
      expect(r.body).toMatchObject({ forge_written: true, hook_id: String(hooks.of(repo)[0]!.id) });
      expect(hooks.of(repo)).toHaveLength(1);
      expect(await sharesToken(r.body.webhook_id, hooks.of(repo)[0]!.secret)).toBe(true);
      expect((await provision({ repo })).body.forge_written).toBe(false);
    }
  });

  it("lets one provision at a time write a repository's hook; a crashed writer's lease runs out", async () => {
    await pin("https://concurrent.example");
    const writes = hooks.writes().length;
    server.fault({ match: /^(PATCH|PUT) .*\/hooks\/\d+$/, times: 1, delayMs: 300 });
    const both = await Promise.all([provision(), provision()]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(hooks.of(forge.repo)).toHaveLength(1);
    expect(hooks.writes()).toHaveLength(writes + 1);
    expect((await provision()).body.forge_written).toBe(false);

    await pin("https://after-crash.example");
    const id = both.find((r) => r.status === 200)!.body.id;
    await t.store.db
      .updateTable("repo_bots")
      .set({ writing_until: t.clock.now() + 60_000 })
      .where("id", "=", id)
      .execute();
    expect((await provision()).status).toBe(409);
    t.clock.advance(60_000);
    expect((await provision()).body).toMatchObject({ forge_written: true, hook_url: expect.stringContaining("https://after-crash.example/") });
  });

  it("has the provision that takes the lease second, after the first has written, write nothing to the forge", async () => {
    await pin("https://raced.example");
    const writes = hooks.writes().length;
    const service = t.services.provisioning as unknown as { writeHookOnce: (...args: unknown[]) => Promise<boolean> };
    const original = service.writeHookOnce.bind(service);
    // The first provision holds the lease through a slow forge write; the second read the repository
    // before that write was committed, and reaches the lease only once the first has let it go.
    server.fault({ match: /^(PATCH|PUT) .*\/hooks\/\d+$/, times: 1, delayMs: 200 });
    let first: Promise<boolean> | undefined;
    const spy = vi.spyOn(service, "writeHookOnce").mockImplementation(async (...args: unknown[]) => {
      if (first === undefined) {
        first = original(...args);
        return first;
      }
      await first.catch(() => undefined);
      return original(...args);
    });
    const both = await Promise.all([provision(), provision()]);
    spy.mockRestore();
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect(both.map((r) => r.body.forge_written).sort()).toEqual([false, true]);
    expect(hooks.writes()).toHaveLength(writes + 1);
    const [hook, ...more] = hooks.of(forge.repo);
    expect(more).toEqual([]);
    expect(hook!.url).toContain("https://raced.example/");
    expect(await sharesToken(both[0]!.body.webhook_id, hook!.secret)).toBe(true);
  });

  it("answers 400 to the base pin and the security token together, 422 to a bad pin", async () => {
    const both = await provision({ webhook_base_url: "https://h.example", security_read_enabled: false });
    expect(both.status).toBe(400);
    expect((await provision({ webhook_base_url: "https://h.example/path" })).status).toBe(422);
    const count = (await seed.member.api.get(repoBots())).body.repo_bots.length;
    expect((await provision({ repo: "acme/unknown-bot", bot_ids: ["no-such-bot"] })).body).toMatchObject({ error: "invalid_request", field: "bot_ids.0" });
    expect((await provision({ repo: "acme" })).body).toMatchObject({ error: "invalid_request", field: "repo" });
    expect((await seed.member.api.get(repoBots())).body.repo_bots).toHaveLength(count);
    expect((await seed.member.api.post(repoBots(), { connection_id: connectionId, repo: forge.repo })).status).toBe(403);
    const r = await provision({ webhook_base_url: "https://pinned.example" });
    expect(r.body.hook_url).toBe(`https://pinned.example/api/webhooks/${forge.provider}/${r.body.webhook_id}`);
  });

  it("rotates a provisioned token: a fresh one on the same hook, the old one still proving deliveries for the overlap", async () => {
    const first = (await provision()).body;
    const hook = hooks.of(forge.repo).find((h) => String(h.id) === first.hook_id)!;
    const old = hook.secret;
    const stored = async () => secretsFromRow(await t.store.db.selectFrom("webhooks").selectAll().where("id", "=", first.webhook_id).executeTakeFirstOrThrow());
    expect((await seed.member.api.post(`${repoBots()}/${first.id}/rotate`)).status).toBe(403);
    const r = await seed.teamAdmin.api.post(`${repoBots()}/${first.id}/rotate`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ hook_id: first.hook_id, webhook_id: first.webhook_id, forge_written: true });
    expect(hooks.of(forge.repo)).toContain(hook);
    expect(hook.secret).not.toBe(old);
    expect(await sharesToken(first.webhook_id, hook.secret)).toBe(true);
    expect(matchWebhookToken(await stored(), old, t.clock.now())).toBe("previous");
    expect(r.body.webhook.previous_token_valid_until).toBe(new Date(t.clock.now() + 5 * 60_000).toISOString());
    t.clock.advance(5 * 60_000);
    expect(matchWebhookToken(await stored(), old, t.clock.now())).toBeUndefined();
    expect(matchWebhookToken(await stored(), hook.secret, t.clock.now())).toBe("current");
    // A leaked token is ended at once.
    const leaked = hook.secret;
    expect((await seed.teamAdmin.api.post(`${repoBots()}/${first.id}/rotate`, { overlap_seconds: 0 })).body.webhook.previous_token_valid_until).toBeNull();
    expect(matchWebhookToken(await stored(), leaked, t.clock.now())).toBeUndefined();
    expect((await seed.teamAdmin.api.post(`${repoBots()}/${first.id}/rotate`, { overlap_seconds: 86_401 })).status).toBe(400);
  });

  it("keeps provisioned configs out of the webhook API's delete and rotate (409), and adopts a patched label_allowlist", async () => {
    const { webhook_id } = (await provision()).body;
    const hook = `/api/teams/${seed.team.id}/webhooks/${webhook_id}`;
    expect((await seed.teamAdmin.api.delete(hook)).status).toBe(409);
    expect((await seed.teamAdmin.api.post(`${hook}/rotate`)).status).toBe(409);
    expect((await seed.teamAdmin.api.patch(hook, { label_allowlist: ["security"] })).status).toBe(200);
    expect((await provision()).body.webhook.label_allowlist).toEqual(["security"]);
  });

  it("a first provision the forge refuses leaves no repo bot and no webhook config behind", async () => {
    const ghost = forge.repo.replace(/[^/]+$/, "ghost-repo");
    server.fault({ match: /POST .*\/hooks$/, status: 500, times: 5 });
    const r = await provision({ repo: ghost, bot_ids: ["review-pr"] });
    server.clearFaults();
    expect([422, 502]).toContain(r.status);
    const listed = (await seed.member.api.get(repoBots())).body.repo_bots as { repo: string }[];
    expect(listed.filter((x) => x.repo === ghost)).toEqual([]);
    const configs = await t.store.db.selectFrom("webhooks").select("name").execute();
    expect(configs.filter((c) => c.name.startsWith(ghost))).toEqual([]);
  });

  it("refuses a PATCH of the fields provisioning owns on a provisioned config (409 naming repo-bots), changing nothing", async () => {
    const { webhook_id } = (await provision({ bot_ids: ["review-pr"], hold_labels: ["wip"] })).body;
    const hook = `/api/teams/${seed.team.id}/webhooks/${webhook_id}`;
    const before = (await seed.teamAdmin.api.get(hook)).body;
    for (const body of [
      { bot_ids: ["review-pr", "improve-branch"] },
      { hold_labels: [] },
      { launch_vars: { a: "b" } },
      { overlap: "skip" },
      { project_allowlist: ["*"] },
      { name: "renamed", hold_labels: ["x"] },
    ]) {
      const r = await seed.teamAdmin.api.patch(hook, body);
      expect(r.status, JSON.stringify(body)).toBe(409);
      expect(r.body.error).toBe("conflict");
      expect(r.body.detail).toContain(`/api/teams/${seed.team.id}/forge/repo-bots`);
    }
    expect((await seed.teamAdmin.api.get(hook)).body).toEqual(before);
    // What provisioning does not write stays the team's to tune.
    expect((await seed.teamAdmin.api.patch(hook, { review_on_sync: true })).status).toBe(200);
    // The repo-bots route changes the owned fields.
    expect((await provision({ hold_labels: [] })).body.webhook.hold_labels).toEqual([]);
  });

  it("lists the connection's repositories with whether each is provisioned", async () => {
    hooks.hooks.set("acme/unwired", []);
    const r = await seed.member.api.get(`/api/teams/${seed.team.id}/forge/repos?connection_id=${connectionId}`);
    expect(r.status).toBe(200);
    const byRepo = Object.fromEntries(r.body.repos.map((x: { repo: string; provisioned: boolean; hook: string | null }) => [x.repo, [x.provisioned, x.hook]]));
    expect(byRepo).toEqual({ [forge.repo]: [true, "ok"], "acme/gadgets": [true, "ok"], "acme/unwired": [false, null] });
    const gadget = hooks.of("acme/gadgets")[0]!;
    gadget.url = "https://elsewhere.example/x";
    const moved = (await seed.member.api.get(`/api/teams/${seed.team.id}/forge/repos?connection_id=${connectionId}`)).body.repos;
    expect(moved.find((x: { repo: string }) => x.repo === "acme/gadgets").hook).toBe("moved");
    hooks.hooks.set("acme/gadgets", []);
    const missing = (await seed.member.api.get(`/api/teams/${seed.team.id}/forge/repos?connection_id=${connectionId}`)).body.repos;
    expect(missing.find((x: { repo: string }) => x.repo === "acme/gadgets").hook).toBe("missing");
    hooks.hooks.set("acme/gadgets", [gadget]);
  });

  it("lists every page of the forge's repositories", async () => {
    for (let i = 0; i < 130; i++) hooks.hooks.set(`acme/many-${String(i).padStart(3, "0")}`, []);
    const r = await seed.member.api.get(`/api/teams/${seed.team.id}/forge/repos?connection_id=${connectionId}`);
    for (let i = 0; i < 130; i++) hooks.hooks.delete(`acme/many-${String(i).padStart(3, "0")}`);
    expect(r.body.repos).toHaveLength(133);
    expect(server.requests.filter((q) => /\/(user\/repos|projects)\?/.test(q.path)).at(-1)!.path).toMatch(/page=[23]/);
  });

  it("never follows a next page off the forge's API root (where the token would go)", async () => {
    const elsewhere = await forge.start();
    try {
      server.fault({
        match: /^GET .*(user\/repos|projects)\?/,
        times: 1,
        status: 200,
        body: [],
        headers: { link: `<${elsewhere.server.apiUrl}/user/repos?page=2>; rel="next"` },
      });
      const r = await seed.member.api.get(`/api/teams/${seed.team.id}/forge/repos?connection_id=${connectionId}`);
      expect(r.body).toMatchObject({ error: "forge_unavailable" });
      expect(elsewhere.server.requests).toEqual([]);
    } finally {
      await elsewhere.server.close();
    }
  });

  it("deprovisions through the forge routes: the hook leaves the forge, the config and row go, then the connection may go", async () => {
    const conn = `/api/teams/${seed.team.id}/forge/connections/${connectionId}`;
    expect((await seed.teamAdmin.api.delete(conn)).status).toBe(409);
    const list = (await seed.member.api.get(repoBots())).body.repo_bots as { id: string; repo: string; webhook_id: string }[];
    expect(list).toHaveLength(2);
    expect((await seed.member.api.delete(`${repoBots()}/${list[0]!.id}`)).status).toBe(403);
    // A crash after the forge removed the hook: the next deprovision finds it gone and finishes.
    const spy = vi.spyOn(t.store, "tx").mockImplementation(() => Promise.reject(new Error("crashed")));
    expect((await seed.teamAdmin.api.delete(`${repoBots()}/${list[0]!.id}`)).status).toBe(500);
    spy.mockRestore();
    expect(hooks.of(list[0]!.repo)).toEqual([]);
    expect((await seed.member.api.get(repoBots())).body.repo_bots).toHaveLength(2);
    for (const rb of list) {
      expect((await seed.teamAdmin.api.delete(`${repoBots()}/${rb.id}`)).status).toBe(204);
      expect((await seed.member.api.get(`/api/teams/${seed.team.id}/webhooks/${rb.webhook_id}`)).status).toBe(404);
    }
    expect(hooks.of(forge.repo)).toEqual([]);
    expect(hooks.of("acme/gadgets")).toEqual([]);
    expect((await seed.member.api.get(repoBots())).body.repo_bots).toEqual([]);
    expect((await seed.teamAdmin.api.delete(conn)).status).toBe(204);
  });
});

describe.each(storeKinds())("a provisioned GitHub repository on %s", (kind) => {
  it("accepts the forge's signed delivery with no copy-paste", async () => {
    const t = await startTestApp(kind);
    const gh = await FakeGitHub.start();
    try {
      const hooks = FakeHooks.mount(gh.server, "github");
      const seed = await seedTenancy(t);
      const c = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/connections`, { provider: "github", base_url: gh.server.url, token: "ghp_x" });
      const r = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/repo-bots`, {
        connection_id: c.body.id,
        repo: "acme/widgets",
        bot_ids: ["review-pr"],
      });
      const hook = hooks.of()[0]!;
      const body = JSON.stringify({ zen: "Keep it logically awesome.", hook_id: hook.id });
      const deliver = (secret: string) =>
        t.app.inject({
          method: "POST",
          url: new URL(hook.url).pathname,
          payload: body,
          headers: {
            "content-type": "application/json",
            "x-github-event": "ping",
            "x-github-delivery": "d-1",
            "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
          },
        });
      expect(new URL(hook.url).pathname).toBe(`/api/webhooks/forge_b/${r.body.webhook_id}`);
      expect((await deliver("wh_not-the-secret")).statusCode).toBe(401);
      expect((await deliver(hook.secret)).statusCode).toBe(200);
    } finally {
      await gh.server.close();
      await t.close();
    }
  });
});

describe.each(storeKinds())("a provisioned repository's bot identity on %s", (kind) => {
  it("counts the GitLab connection's account as the service's own bot, and a GitHub token's login not (spec rule 6)", async () => {
    const t = await startTestApp(kind, { SERVICE_WEBHOOK_SYNC_DEBOUNCE: "0" });
    const gl = await FakeGitLab.start();
    const gh = await FakeGitHub.start();
    try {
      const seed = await seedTenancy(t);
      const glHooks = FakeHooks.mount(gl.server, "gitlab");
      const ghHooks = FakeHooks.mount(gh.server, "github");
      const repo = "acme/platform/gitlab-test";
      glHooks.hooks.set(repo, []);
      ghHooks.hooks.set("acme/sprockets", []);
      // The fixture's merge request and pull request are both opened by alice.
      gl.tokenOwner.login = "alice";
      gh.tokenOwner.login = "alice";
      const wire = async (provider: string, url: string, r: string) => {
        const c = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/connections`, { provider, base_url: url, token: "tok" });
        return (await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/repo-bots`, { connection_id: c.body.id, repo: r, bot_ids: ["review-pr"] }))
          .body;
      };
      await wire("gitlab", gl.server.url, repo);
      const glHook = glHooks.of(repo)[0]!;
      const mr = JSON.stringify(fixture("gitlab-merge-request-open"));
      const fromGitlab = await t.app.inject({
        method: "POST",
        url: new URL(glHook.url).pathname,
        payload: mr,
        headers: { "content-type": "application/json", "x-gitlab-event": "Merge Request Hook", "x-gitlab-token": glHook.secret },
      });
      expect(JSON.parse(fromGitlab.body)).toMatchObject({ status: "filtered", reason: "opened by the service's own forge bot: alice" });

      await wire("github", gh.server.url, "acme/sprockets");
      const ghHook = ghHooks.of("acme/sprockets")[0]!;
      const pr = githubExample(loadGithubExamples(), "pull_request", "opened") as any;
      pr.repository.full_name = "acme/sprockets";
      pr.pull_request.base.repo.full_name = "acme/sprockets";
      pr.pull_request.head.repo.full_name = "acme/sprockets";
      pr.pull_request.head.repo.id = pr.pull_request.base.repo.id;
      pr.pull_request.user.login = "alice";
      pr.pull_request.draft = false;
      const body = JSON.stringify(pr);
      const fromGithub = await t.app.inject({
        method: "POST",
        url: new URL(ghHook.url).pathname,
        payload: body,
        headers: {
          "content-type": "application/json",
          "x-github-event": "pull_request",
          "x-github-delivery": "d-2",
          "x-hub-signature-256": `sha256=${createHmac("sha256", ghHook.secret).update(body).digest("hex")}`,
        },
      });
      expect(fromGithub.statusCode, fromGithub.body).toBe(200);
      expect(JSON.parse(fromGithub.body)).toMatchObject({ status: "launched" });
    } finally {
      await gl.server.close();
      await gh.server.close();
      await t.close();
    }
  });
});

describe.each(storeKinds())("the team's repositories across its connections on %s", (kind) => {
  it("lists every connection's repositories without connection_id (each named with its connection), and narrows with it", async () => {
    const t = await startTestApp(kind, { SERVICE_BASE_URL: BASE });
    const seed = await seedTenancy(t);
    const started = await Promise.all(FORGES.map((f) => f.start()));
    try {
      const repos = () => seed.member.api.get(`/api/teams/${seed.team.id}/forge/repos`);
      expect((await repos()).body).toEqual({ repos: [] });
      const ids: string[] = [];
      for (const [i, forge] of FORGES.entries()) {
        const server = started[i]!.server;
        const hooks = FakeHooks.mount(server, forge.flavour);
        hooks.hooks.clear();
        hooks.hooks.set(`${forge.alias}/only-here`, []);
        const c = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/connections`, {
          provider: forge.alias,
          base_url: server.url,
          token: "tok-0123456789abcdef",
        });
        expect(c.status).toBe(201);
        ids.push(c.body.id);
      }
      const all = await repos();
      expect(all.status).toBe(200);
      const seen = all.body.repos.map((r: { repo: string; connection_id: string; provider: string }) => [r.repo, r.connection_id, r.provider]);
      expect(seen).toEqual(expect.arrayContaining(FORGES.map((f, i) => [`${f.alias}/only-here`, ids[i], f.provider])));
      expect(seen).toHaveLength(FORGES.length);
      const narrowed = await seed.member.api.get(`/api/teams/${seed.team.id}/forge/repos?connection_id=${ids[1]}`);
      expect(narrowed.body.repos.map((r: { repo: string }) => r.repo)).toEqual([`${FORGES[1].alias}/only-here`]);
      expect((await seed.member.api.get(`/api/teams/${seed.team.id}/forge/repos?connection_id=fcn_nope`)).status).toBe(404);
      expect((await seed.outsider.api.get(`/api/teams/${seed.team.id}/forge/repos`)).status).toBe(404);
    } finally {
      for (const s of started) await s.server.close();
      await t.close();
    }
  });
});
