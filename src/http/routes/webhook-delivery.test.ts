import { createHash, createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture, githubExample, githubPullBody, loadGithubExamples } from "../../intake/fixtures/fixtures.js";
import { monthOf } from "../../core/month.js";
import { standardSecret } from "../../forges/shared/verify-standard-webhook.js";
import { monthlyWebhookCalls } from "../../store/webhook-calls.js";
import { seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";

const examples = loadGithubExamples();
const sign = (secret: string, body: string | Buffer) => createHmac("sha256", secret).update(body).digest("hex");

/** GitHub's pull_request.opened example with a head sha of our choosing. */
/** Over `inject`, Fastify's route answers; over real HTTP, the fast path takes these requests. */
const transports = ["inject", "http"] as const;
const cases = storeKinds().flatMap((kind) => transports.map((transport) => [kind, transport] as const));

describe.each(cases)("webhook delivery endpoint on %s over %s", (kind, transport) => {
  let t: TestApp;
  let base = "";
  let seed: Awaited<ReturnType<typeof seedTenancy>>;

  const createHook = async (body: Record<string, unknown>) => {
    const r = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, body);
    expect(r.status).toBe(201);
    return { id: r.body.config.id as string, token: r.body.token as string };
  };
  const deliver = async (provider: string, id: string, body: string | Buffer, headers: Record<string, string>) => {
    const url = `/api/webhooks/${provider}/${id}`;
    const all = { "content-type": "application/json", ...headers };
    if (transport === "inject") return t.app.inject({ method: "POST", url, payload: body, headers: all });
    const res = await fetch(base + url, { method: "POST", body, headers: all });
    return { statusCode: res.status, body: await res.text(), headers: Object.fromEntries(res.headers) };
  };
  const github = (hook: { id: string; token: string }, body: string, event = "pull_request") =>
    deliver("forge_b", hook.id, body, { "x-github-event": event, "x-hub-signature-256": `sha256=${sign(hook.token, body)}`, "x-github-delivery": "d-1" });
  const deliveries = async (hookId: string) => (await seed.member.api.get(`/api/teams/${seed.team.id}/webhooks/${hookId}/deliveries`)).body.deliveries as any[];

  beforeAll(async () => {
    t = await startTestApp(kind, { SERVICE_WEBHOOK_SYNC_DEBOUNCE: "0" });
    seed = await seedTenancy(t);
    if (transport === "http") base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(() => t.close());

  describe("admission gates, in the spec's order", () => {
    it("answers 401 invalid webhook for an unknown id, an unknown provider and a provider mismatch", async () => {
      const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"] });
      for (const [provider, id] of [
        ["forge_b", "whk_nope"],
        ["bitbucket", hook.id],
        ["forge_c", hook.id],
      ] as const) {
        const r = await deliver(provider, id, "{}", {});
        expect(r.statusCode).toBe(401);
        expect(JSON.parse(r.body)).toMatchObject({ error: "invalid_webhook", detail: "invalid webhook" });
      }
    });

    it("takes the vendor aliases of the provider in the URL", async () => {
      const hook = await createHook({ provider: "github", bot_ids: ["review-pr"] });
      const body = githubPullBody("a".repeat(40));
      const r = await deliver("github", hook.id, body, { "x-github-event": "pull_request", "x-hub-signature-256": `sha256=${sign(hook.token, body)}` });
      expect(r.statusCode).toBe(200);
    });

    it("checks the token in token mode: missing or bad → 401 recorded invalid; every accepted header spelling works", async () => {
      const hook = await createHook({ provider: "forge_a", bot_ids: ["review-pr"] });
      const body = fixture("gitlab-merge-request-open");
      const send = (headers: Record<string, string>) =>
        deliver("forge_a", hook.id, JSON.stringify(body), { "x-gitlab-event": "Merge Request Hook", ...headers });
      const missing = await send({});
      expect(missing.statusCode).toBe(401);
      expect(JSON.parse(missing.body).error).toBe("invalid_webhook_token");
      expect((await send({ "x-gitlab-token": "wh_wrong" })).statusCode).toBe(401);
      for (const header of ["x-gitlab-token", "x-forge-a-token", "x-service-webhook-token"]) {
        expect((await send({ [header]: hook.token })).statusCode, header).toBe(200);
      }
      const rows = await deliveries(hook.id);
      expect(rows.filter((d) => d.status === "invalid")).toHaveLength(2);
    });

    it("answers 410 for a disabled webhook", async () => {
      const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"] });
      await seed.teamAdmin.api.patch(`/api/teams/${seed.team.id}/webhooks/${hook.id}`, { enabled: false });
      const r = await github(hook, githubPullBody("b".repeat(40)));
      expect(r.statusCode).toBe(410);
      expect(JSON.parse(r.body).detail).toBe("webhook disabled");
    });

    it("empties the bucket: 429 with Retry-After, a rate_limited row, the throttle metric", async () => {
      const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"], burst: 2, rate: 0.5 });
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push((await github(hook, githubPullBody(`c${i}`.padEnd(40, "0")))).statusCode);
      expect(codes).toEqual([200, 200, 429]);
      const r = await github(hook, githubPullBody("c9".padEnd(40, "0")));
      expect(r.headers["retry-after"]).toBe("2");
      expect((await deliveries(hook.id)).filter((d) => d.status === "rate_limited")).toHaveLength(2);
      expect(await t.services.metrics.text()).toMatch(/service_webhook_throttled_total\{provider="forge_b",reason="rate_limited"\} 2/);
    });

    it("enforces the per-webhook monthly call limit with 429 and counts no denied call", async () => {
      const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"], monthly_call_limit: 2 });
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push((await github(hook, githubPullBody(`d${i}`.padEnd(40, "0")))).statusCode);
      expect(codes).toEqual([200, 200, 429, 429]);
      const last = await github(hook, githubPullBody("d9".padEnd(40, "0")));
      expect(JSON.parse(last.body).detail).toBe("monthly call quota exceeded");
      expect((await deliveries(hook.id)).filter((d) => d.status === "quota_exceeded")).toHaveLength(3);
    });
  });

  describe("a refused call is refused whatever its body, and counted nowhere", () => {
    // The body is proven and parsed before the admission is written (they are one write), so
    // each body kind is sent as a webhook's first refused call, then again once the refusal
    // is known to this process (the admission then goes first, alone).
    const bodies = {
      "a bad signature": (hook: { id: string }) =>
        deliver("forge_b", hook.id, githubPullBody("1".repeat(40)), { "x-github-event": "pull_request", "x-hub-signature-256": `sha256=${"0".repeat(64)}` }),
      "a filtered event": (hook: { id: string; token: string }) => github(hook, JSON.stringify({ zen: "ping" }), "ping"),
      "a launching pull request": (hook: { id: string; token: string }) => github(hook, githubPullBody("2".repeat(40))),
      // The first delivery's own event again: its key is held, and this process saw it launch.
      "a replay of the launched pull request": (hook: { id: string; token: string }) => github(hook, githubPullBody("3".repeat(40))),
    };
    type RefusedHook = { id: string; token: string; teamId: string; counter: `org:${string}` | `webhook:${string}` };
    const onSeedTeam = async (limits: Record<string, unknown>): Promise<RefusedHook> => {
      const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"], ...limits });
      return { ...hook, teamId: seed.team.id, counter: `webhook:${hook.id}` as const };
    };
    /** An org of its own, allowed one webhook call a month. */
    const inSpentOrg = async (): Promise<RefusedHook> => {
      const org = (await seed.admin.post("/api/admin/orgs", { name: `quota-${Math.random()}`, monthly_webhook_calls: 1 })).body;
      const team = (await seed.admin.post(`/api/orgs/${org.id}/teams`, { name: "quota" })).body;
      const made = (await seed.admin.post(`/api/teams/${team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] })).body;
      return { id: made.config.id as string, token: made.token as string, teamId: team.id as string, counter: `org:${org.id}` as const };
    };
    for (const [refusal, makeHook, status, detail, reason] of [
      ["an empty bucket", () => onSeedTeam({ burst: 1, rate: 0.001 }), "rate_limited", "webhook rate limit exceeded", "webhook rate limit"],
      [
        "the webhook's monthly quota",
        () => onSeedTeam({ monthly_call_limit: 1 }),
        "quota_exceeded",
        "monthly call quota exceeded",
        "monthly call quota exceeded (webhook)",
      ],
      ["the org's monthly quota", inSpentOrg, "quota_exceeded", "monthly call quota exceeded", "monthly call quota exceeded (org)"],
    ] as const) {
      it.each(Object.keys(bodies))(`${refusal}: %s answers 429`, async (name) => {
        const hook = await makeHook();
        expect((await github(hook, githubPullBody("3".repeat(40)))).statusCode).toBe(200);
        for (let i = 0; i < 2; i++) {
          const r = await bodies[name as keyof typeof bodies](hook);
          expect(r.statusCode, `send ${i + 1}`).toBe(429);
          expect(JSON.parse(r.body).detail).toBe(detail);
        }
        const rows = (await seed.admin.get(`/api/teams/${hook.teamId}/webhooks/${hook.id}/deliveries`)).body.deliveries as any[];
        expect(rows.map((d) => d.status).sort()).toEqual(["launched", status, status]);
        for (const row of rows.filter((d) => d.status === status)) expect(row.reason).toBe(reason);
        expect(await monthlyWebhookCalls(t.store.db, hook.counter, monthOf(t.clock.now()))).toBe(1);
      });
    }
  });

  describe("forge_b pull requests", () => {
    it("launches a review on opened, acknowledges after commit, and answers a replay as a duplicate", async () => {
      const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"] });
      const body = githubPullBody("e".repeat(40));
      const first = await github(hook, body);
      expect(first.statusCode).toBe(200);
      const launched = JSON.parse(first.body);
      expect(launched).toMatchObject({ status: "launched", bot: "review-pr" });
      const run = (await seed.member.api.get(`/api/runs/${launched.run_id}`)).body;
      expect(run).toMatchObject({ status: "queued", bot_id: "review-pr" });
      expect(run.vars).toMatchObject({ pr_review_mode: "inline", post_to_board: "false" });

      const replay = JSON.parse((await github(hook, body)).body);
      expect(replay).toMatchObject({ status: "duplicate", run_id: launched.run_id });
      expect(replay.delivery_id).not.toBe(launched.delivery_id);

      const rows = await deliveries(hook.id);
      const row = rows.find((d) => d.id === launched.delivery_id);
      expect(row).toMatchObject({ status: "launched", run_id: launched.run_id, attempts: 1, event_kind: "pull_request", event_action: "opened" });
      expect(row.payload_sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(rows)).not.toContain('"pull_request":{');
      // The replay's own row: the launched row's event columns, as a non-launched row of its own.
      const dup = rows.find((d) => d.id === replay.delivery_id);
      const { id: _id, status: _status, idempotency_key: _key, reason: _reason, launched_at: _at, attempts: _attempts, ...shared } = row;
      expect(dup).toEqual({
        ...shared,
        id: replay.delivery_id,
        status: "duplicate",
        idempotency_key: `row|${replay.delivery_id}`,
        reason: `duplicate of ${launched.delivery_id}`,
        launched_at: null,
        attempts: 0,
      });
      expect(await monthlyWebhookCalls(t.store.db, `webhook:${hook.id}`, monthOf(t.clock.now()))).toBe(2);
    });

    it("launches again when the row holding a replayed key is gone: the key seen held is a hint, the store decides", async () => {
      const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"] });
      const body = githubPullBody("a1".repeat(20));
      const first = JSON.parse((await github(hook, body)).body);
      expect(first.status).toBe("launched");
      await t.store.db.deleteFrom("webhook_deliveries").where("id", "=", first.delivery_id).execute();
      const again = JSON.parse((await github(hook, body)).body);
      expect(again).toMatchObject({ status: "launched" });
      expect(again.run_id).not.toBe(first.run_id);
      const replay = JSON.parse((await github(hook, body)).body);
      expect(replay).toMatchObject({ status: "duplicate", run_id: again.run_id });
      expect((await deliveries(hook.id)).map((d) => d.status).sort()).toEqual(["duplicate", "launched"]);
      expect(await monthlyWebhookCalls(t.store.db, `webhook:${hook.id}`, monthOf(t.clock.now()))).toBe(3);
    });

    it("retries a launch_error row found holding a replayed key under that row", async () => {
      const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"] });
      const body = githubPullBody("b2".repeat(20));
      const first = JSON.parse((await github(hook, body)).body);
      await t.store.db
        .updateTable("webhook_deliveries")
        .set({ status: "launch_error", run_id: null, launched_at: null })
        .where("id", "=", first.delivery_id)
        .execute();
      const retried = JSON.parse((await github(hook, body)).body);
      expect(retried).toMatchObject({ status: "launched", delivery_id: first.delivery_id });
      expect(retried.run_id).not.toBe(first.run_id);
      expect((await deliveries(hook.id)).map((d) => [d.status, d.attempts])).toEqual([["launched", 2]]);
    });

    it("records a bad signature as invalid with 401", async () => {
      const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"] });
      const r = await deliver("forge_b", hook.id, githubPullBody("f".repeat(40)), {
        "x-github-event": "pull_request",
        "x-hub-signature-256": `sha256=${"0".repeat(64)}`,
      });
      expect(r.statusCode).toBe(401);
      expect(JSON.parse(r.body).error).toBe("invalid_signature");
      expect((await deliveries(hook.id))[0]).toMatchObject({ status: "invalid" });
    });

    it("filters an author outside the allowlist with 200 and a visible reason", async () => {
      const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"], author_allowlist: ["someone-else"] });
      const r = await github(hook, githubPullBody("1".repeat(40)));
      expect(r.statusCode).toBe(200);
      expect(JSON.parse(r.body)).toMatchObject({ status: "filtered" });
      expect((await deliveries(hook.id))[0].reason).toMatch(/author/);
    });

    it("reads an empty event_allowlist as the provider's defaults: a pull request launches; a list without it filters it", async () => {
      const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"], event_allowlist: [] });
      expect(JSON.parse((await github(hook, githubPullBody("f1".repeat(20)))).body)).toMatchObject({ status: "launched" });
      const narrowed = await createHook({ provider: "forge_b", bot_ids: ["review-pr"], event_allowlist: ["issues"] });
      expect(JSON.parse((await github(narrowed, githubPullBody("f2".repeat(20)))).body)).toMatchObject({
        status: "filtered",
        reason: expect.stringMatching(/event_allowlist/),
      });
    });

    it("filters ping and push with 200", async () => {
      const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"] });
      for (const event of ["ping", "push"]) {
        const r = await github(hook, JSON.stringify(githubExample(examples, event)), event);
        expect(r.statusCode, event).toBe(200);
        expect(JSON.parse(r.body).status).toBe("filtered");
      }
    });

    it("returns the gate's denial envelope, records launch_error, and launches on a retry under the same key", async () => {
      const admin = seed.admin;
      const team = (await admin.post(`/api/orgs/${seed.org.id}/teams`, { name: "Gated", max_concurrent_runs: 1 })).body;
      await admin.put(`/api/teams/${team.id}/members/${seed.teamAdmin.id}`, { role: "admin" });
      const r0 = await seed.teamAdmin.api.post(`/api/teams/${team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] });
      const hook = { id: r0.body.config.id, token: r0.body.token };
      const first = JSON.parse((await github(hook, githubPullBody("2".repeat(40)))).body);
      expect(first.status).toBe("launched");
      const body = githubPullBody("3".repeat(40));
      const denied = await github(hook, body);
      expect(denied.statusCode).toBe(429);
      expect(denied.headers["retry-after"]).toBe("30");
      expect(JSON.parse(denied.body)).toEqual({ error: "concurrency_cap_exceeded", detail: expect.any(String) });
      const rows = (await seed.teamAdmin.api.get(`/api/teams/${team.id}/webhooks/${hook.id}/deliveries`)).body.deliveries;
      expect(rows[0]).toMatchObject({ status: "launch_error", denial_reason: "concurrency_cap_exceeded", attempts: 1 });
      expect(rows[0].failed_at).toBeTruthy();

      await seed.teamAdmin.api.post(`/api/runs/${first.run_id}/cancel`);
      const retried = JSON.parse((await github(hook, body)).body);
      expect(retried.status).toBe("launched");
      expect(retried.delivery_id).toBe(rows[0].id);
      const after = (await seed.teamAdmin.api.get(`/api/teams/${team.id}/webhooks/${hook.id}/deliveries`)).body.deliveries;
      expect(after.find((d: any) => d.id === rows[0].id)).toMatchObject({ status: "launched", attempts: 2 });
      // Each call was admitted, so each is counted, the one the launch gate denied too.
      expect(await monthlyWebhookCalls(t.store.db, `webhook:${hook.id}`, monthOf(t.clock.now()))).toBe(3);
    });

    it("stops every run bound to a closed pull request and launches nothing", async () => {
      const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"] });
      const opened = JSON.parse((await github(hook, githubPullBody("4".repeat(40)))).body);
      const closed = githubExample(examples, "pull_request", "closed") as any;
      const openedPayload = JSON.parse(githubPullBody("4".repeat(40)));
      closed.pull_request.number = openedPayload.pull_request.number;
      closed.repository = openedPayload.repository;
      closed.pull_request.base.repo = openedPayload.pull_request.base.repo;
      const subject = (await t.store.db.selectFrom("runs").select("subject_id").where("id", "=", opened.run_id).executeTakeFirstOrThrow()).subject_id!;
      const active = async () =>
        (
          await t.store.db
            .selectFrom("runs")
            .select("id")
            .where("team_id", "=", seed.team.id)
            .where("subject_id", "=", subject)
            .where("status", "in", ["queued", "running"])
            .execute()
        ).length;
      const before = await active();
      expect(before).toBeGreaterThanOrEqual(1);
      const r = JSON.parse((await github(hook, JSON.stringify(closed))).body);
      // Every run of the team bound to that pull request stops, whichever webhook launched it.
      expect(r).toMatchObject({ status: "filtered", stopped: before });
      expect(await active()).toBe(0);
      expect((await seed.member.api.get(`/api/runs/${opened.run_id}`)).body.status).toBe("cancelled");
    });

    it("launches exactly one run for 1000 concurrent identical deliveries", async () => {
      const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"], burst: 5000, rate: 1000 });
      const body = githubPullBody("5".repeat(40));
      const replies = await Promise.all(Array.from({ length: 1000 }, () => github(hook, body)));
      const bodies = replies.map((r) => JSON.parse(r.body));
      expect(replies.every((r) => r.statusCode === 200)).toBe(true);
      expect(bodies.filter((b) => b.status === "launched")).toHaveLength(1);
      expect(new Set(bodies.map((b) => b.run_id)).size).toBe(1);
      const runs = await t.store.db.selectFrom("runs").select("id").where("webhook_id", "=", hook.id).execute();
      expect(runs).toHaveLength(1);
    });
  });

  describe("forge_c", () => {
    it("verifies a Forgejo signature without the sha256= prefix and launches", async () => {
      const hook = await createHook({ provider: "forgejo", bot_ids: ["review-pr"] });
      const body = JSON.stringify(fixture("forgejo-pull-request-opened"));
      const r = await deliver("forge_c", hook.id, body, { "x-forgejo-event": "pull_request", "x-forgejo-signature": sign(hook.token, body) });
      expect(JSON.parse(r.body)).toMatchObject({ status: "launched" });
    });

    it("verifies a form-encoded Gitea delivery over the JSON inside it", async () => {
      const hook = await createHook({ provider: "gitea", bot_ids: ["review-pr"] });
      const json = JSON.stringify(fixture("forgejo-pull-request-opened")).replace(/"sha":"[0-9a-f]+"/, `"sha":"${"6".repeat(40)}"`);
      const form = `payload=${encodeURIComponent(json)}`;
      const r = await deliver("forge_c", hook.id, form, {
        "content-type": "application/x-www-form-urlencoded",
        "x-gitea-event": "pull_request",
        "x-gitea-signature": sign(hook.token, json),
      });
      expect(r.statusCode).toBe(200);
      expect(JSON.parse(r.body).status).toBe("launched");
    });
  });

  describe("generic", () => {
    const send = (hook: { id: string; token: string }, body: unknown) =>
      deliver("generic", hook.id, JSON.stringify(body), { "x-service-webhook-token": hook.token });

    it("launches the named bot; body vars first, the webhook's launch_vars win", async () => {
      const hook = await createHook({ provider: "generic", bot_ids: ["review-pr", "converse"], launch_vars: { mode: "operator" } });
      const r = JSON.parse((await send(hook, { bot: "converse", vars: { mode: "caller", topic: "x" }, idempotency_key: "k1" })).body);
      expect(r.status).toBe("launched");
      const run = (await seed.member.api.get(`/api/runs/${r.run_id}`)).body;
      expect(run.vars).toMatchObject({ mode: "operator", topic: "x" });
      expect(JSON.parse((await send(hook, { bot: "converse", vars: {}, idempotency_key: "k1" })).body).status).toBe("duplicate");
    });

    it.each([
      ["no bot", { vars: {} }, "generic: missing bot"],
      ["257 vars", { bot: "review-pr", vars: Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`k${i}`, "v"])) }, "generic: too many vars"],
      ["a bad key", { bot: "review-pr", vars: { "1bad": "v" } }, "bad var key"],
      ["a 4097-byte value", { bot: "review-pr", vars: { big: "x".repeat(4097) } }, "var value too large"],
      ["a NUL in repo_url", { bot: "review-pr", repo_url: "https://x/r\u0000.git" }, "generic: repo_url contains a NUL character"],
      ["a NUL in repo_ref", { bot: "review-pr", repo_ref: "main\u0000" }, "generic: repo_ref contains a NUL character"],
      ["a NUL in a var value", { bot: "review-pr", vars: { title: "\u0000" } }, "generic: vars.title contains a NUL character"],
    ])("answers 400 for %s", async (_label, body, message) => {
      const hook = await createHook({ provider: "generic", bot_ids: ["review-pr", "converse"] });
      const r = await send(hook, body);
      expect(r.statusCode).toBe(400);
      expect(JSON.parse(r.body).detail).toContain(message);
    });

    it("verifies Standard Webhooks signatures in standard mode, signed by the standardwebhooks library, and refuses a replay past the tolerance", async () => {
      const hook = await createHook({ provider: "generic", sign_mode: "standard", bot_ids: ["review-pr"] });
      const sender = new Webhook(standardSecret(hook.token));
      const body = JSON.stringify({ bot: "review-pr", vars: {}, idempotency_key: "std-1" });
      const headers = (at: number, id = "msg_std") => ({
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(at / 1000)),
        "webhook-signature": sender.sign(id, new Date(at), body),
      });
      const good = await deliver("generic", hook.id, body, headers(t.clock.now()));
      expect([good.statusCode, JSON.parse(good.body).status]).toEqual([200, "launched"]);
      const stale = await deliver("generic", hook.id, body, headers(t.clock.now() - 6 * 60_000));
      expect([stale.statusCode, JSON.parse(stale.body)]).toEqual([
        401,
        { error: "invalid_signature", detail: "webhook-timestamp is outside the tolerance", request_id: expect.any(String) },
      ]);
      const forged = await deliver("generic", hook.id, body, { ...headers(t.clock.now()), "webhook-signature": `v1,${"A".repeat(43)}=` });
      expect(forged.statusCode).toBe(401);
      // The token alone proves nothing in this mode.
      expect((await deliver("generic", hook.id, body, { "x-service-webhook-token": hook.token })).statusCode).toBe(401);
      const forge = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, {
        provider: "forge_b",
        sign_mode: "standard",
        bot_ids: ["review-pr"],
      });
      expect([forge.status, forge.body.field]).toEqual([400, "sign_mode"]);
    });

    it("verifies an HMAC in hmac mode", async () => {
      const hook = await createHook({ provider: "generic", sign_mode: "hmac", bot_ids: ["review-pr"] });
      const body = JSON.stringify({ bot: "review-pr", vars: {} });
      const good = await deliver("generic", hook.id, body, { "x-service-webhook-signature": `sha256=${sign(hook.token, body)}` });
      expect(JSON.parse(good.body).status).toBe("launched");
      const bad = await deliver("generic", hook.id, body, { "x-service-webhook-signature": sign("wh_other", body) });
      expect(bad.statusCode).toBe(401);
    });
  });

  it("lets go of the body once it is proven and parsed, before the store's round trip", async () => {
    const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"] });
    const body = githubPullBody("e".repeat(40));
    const req = {
      provider: "forge_b",
      webhookId: hook.id,
      rawBody: Buffer.from(body),
      sourceIp: null,
      headers: { "x-github-event": "pull_request", "x-hub-signature-256": `sha256=${sign(hook.token, body)}` },
    };
    const ledger = t.store.ledger;
    const commit = ledger.commit;
    const bodyBytesAtWrite: number[] = [];
    ledger.commit = (c) => {
      bodyBytesAtWrite.push(req.rawBody.length);
      return commit.call(ledger, c);
    };
    try {
      expect((await t.services.intake.deliver(req)).kind).toBe("launch");
    } finally {
      ledger.commit = commit;
    }
    expect(bodyBytesAtWrite).toEqual([0]);
    const [row] = await deliveries(hook.id);
    expect(row.payload_sha256).toBe(createHash("sha256").update(body).digest("hex"));
  });

  it("answers 403 org suspended after the call is admitted", async () => {
    const org = (await seed.admin.post("/api/admin/orgs", { name: "Sleepy" })).body;
    const team = (await seed.admin.post(`/api/orgs/${org.id}/teams`, { name: "T" })).body;
    const made = (await seed.admin.post(`/api/teams/${team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] })).body;
    await seed.admin.patch(`/api/admin/orgs/${org.id}`, { status: "suspended" });
    const r = await github({ id: made.config.id, token: made.token }, githubPullBody("7".repeat(40)));
    expect(r.statusCode).toBe(403);
    expect(JSON.parse(r.body)).toMatchObject({ error: "org_suspended", detail: "org suspended" });
  });

  it("answers a read-only org 403 org suspended too, for a launching event and a ping, with no launch_error row", async () => {
    const org = (await seed.admin.post("/api/admin/orgs", { name: "Frozen" })).body;
    const team = (await seed.admin.post(`/api/orgs/${org.id}/teams`, { name: "T" })).body;
    const made = (await seed.admin.post(`/api/teams/${team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] })).body;
    expect((await seed.admin.patch(`/api/admin/orgs/${org.id}`, { status: "read-only" })).status).toBe(200);
    const hook = { id: made.config.id, token: made.token };
    for (const r of [await github(hook, githubPullBody("8".repeat(40))), await github(hook, JSON.stringify({ zen: "ping" }), "ping")]) {
      expect(r.statusCode).toBe(403);
      expect(JSON.parse(r.body)).toMatchObject({ error: "org_suspended", detail: "org suspended" });
    }
    const rows = await t.store.db.selectFrom("webhook_deliveries").select("status").where("webhook_id", "=", made.config.id).execute();
    expect(rows.filter((r) => r.status === "launch_error")).toEqual([]);
    expect(await t.store.db.selectFrom("runs").select("id").where("team_id", "=", team.id).execute()).toEqual([]);
  });

  it("counts every terminal status in service_webhook_deliveries_total", async () => {
    const text = await t.services.metrics.text();
    for (const status of ["launched", "filtered", "invalid", "duplicate", "rate_limited", "quota_exceeded", "launch_error"]) {
      expect(text, status).toMatch(new RegExp(`service_webhook_deliveries_total\\{provider="[a-z_]+",status="${status}"\\} [1-9]`));
    }
  });
});

describe.each(transports)("source IP behind a proxy, over %s", (transport) => {
  it("records the forwarded client address only through trusted proxies (hop count, all, or addresses)", async () => {
    const cases = [
      ["false", "203.0.113.7", "127.0.0.1"],
      ["1", "198.51.100.2, 203.0.113.7", "203.0.113.7"],
      ["true", "198.51.100.2, 203.0.113.7", "198.51.100.2"],
      ["127.0.0.1/8", "198.51.100.2, 203.0.113.7", "203.0.113.7"],
      ["10.0.0.0/8", "203.0.113.7", "127.0.0.1"],
    ] as const;
    for (const [trust, forwarded, want] of cases) {
      const t = await startTestApp("sqlite", { SERVICE_TRUST_PROXY: trust });
      const seed = await seedTenancy(t);
      const made = (await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, { provider: "generic", bot_ids: ["review-pr"] })).body;
      const url = `/api/webhooks/generic/${made.config.id}`;
      const headers = { "content-type": "application/json", "x-service-webhook-token": made.token, "x-forwarded-for": forwarded };
      const payload = JSON.stringify({ bot: "review-pr", vars: {} });
      if (transport === "inject") {
        await t.app.inject({ method: "POST", url, remoteAddress: "127.0.0.1", headers, payload });
      } else {
        const base = await t.app.listen({ port: 0, host: "127.0.0.1" });
        expect((await fetch(base + url, { method: "POST", headers, body: payload })).status).toBe(200);
      }
      const rows = (await seed.member.api.get(`/api/teams/${seed.team.id}/webhooks/${made.config.id}/deliveries`)).body.deliveries;
      expect(rows[0].source_ip, `trust ${trust}`).toBe(want);
      await t.close();
    }
  });
});

describe.each(storeKinds())("concurrent deliveries of one body on %s", (kind) => {
  it("launch, refuse and record the payload hash of every row, whether proven first or refused first", async () => {
    const t = await startTestApp(kind, { SERVICE_WEBHOOK_SYNC_DEBOUNCE: "0" });
    try {
      const seed = await seedTenancy(t);
      const made = (await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"], burst: 3, rate: 0.01 }))
        .body;
      const send = (body: string, signature: string) =>
        t.app.inject({
          method: "POST",
          url: `/api/webhooks/forge_b/${made.config.id}`,
          payload: body,
          headers: { "content-type": "application/json", "x-github-event": "pull_request", "x-hub-signature-256": `sha256=${signature}` },
        });
      const body = githubPullBody("c".repeat(40));
      const [launched, replay, forged] = await Promise.all([
        send(body, sign(made.token, body)),
        send(body, sign(made.token, body)),
        send(body, "0".repeat(64)),
      ]);
      expect([launched.statusCode, replay.statusCode, forged.statusCode]).toEqual([200, 200, 401]);
      expect([JSON.parse(launched.body).status, JSON.parse(replay.body).status].sort()).toEqual(["duplicate", "launched"]);
      // The first throttled body is proven before its admission; while the bucket stays empty, the next is hashed for its row only.
      const limited = await send(body, sign(made.token, body));
      expect(limited.statusCode).toBe(429);
      const limitedAgain = await send(body, sign(made.token, body));
      expect(limitedAgain.statusCode).toBe(429);
      t.clock.advance(Number(limitedAgain.headers["retry-after"]) * 1000);
      const next = githubPullBody("d".repeat(40));
      const refilled = JSON.parse((await send(next, sign(made.token, next))).body);
      expect(refilled.status).toBe("launched");

      const all = (await seed.member.api.get(`/api/teams/${seed.team.id}/webhooks/${made.config.id}/deliveries`)).body.deliveries as any[];
      const rows = all.filter((r) => r.id !== refilled.delivery_id);
      expect(rows.map((r) => r.status).sort()).toEqual(["duplicate", "invalid", "launched", "rate_limited", "rate_limited"]);
      const hash = createHash("sha256").update(body).digest("hex");
      for (const row of rows) expect(row.payload_sha256, row.status).toBe(hash);
    } finally {
      await t.close();
    }
  });
});
