import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, seedTenancy, startTestApp, storeKinds, type TestApp } from "../../test-support/harness.js";
import { rawPost } from "../../test-support/raw-http.js";

const MiB = 1024 * 1024;
const json = { "content-type": "application/json" };

/** Over real HTTP: a delivery's body is read only once its headers let it through, and only so far. */
describe.each(storeKinds())("delivery bodies on %s", (kind) => {
  let t: TestApp;
  let port = 0;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;
  const hook = async (body: Record<string, unknown>) => {
    const r = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, body);
    expect(r.status).toBe(201);
    return { id: r.body.config.id as string, token: r.body.token as string };
  };
  /** Announces `length` bytes and sends ten: the answer must come without the rest. */
  const announce = (path: string, length: number, headers: Record<string, string> = {}) =>
    rawPost(port, path, { ...json, "content-length": String(length), ...headers }, ['{"a":"bcd"'], { end: false });

  beforeAll(async () => {
    t = await startTestApp(kind);
    seed = await seedTenancy(t);
    const url = await t.app.listen({ port: 0, host: "127.0.0.1" });
    port = Number(new URL(url).port);
  });
  afterAll(() => t.close());

  it("refuses an unknown id, a provider mismatch, a disabled webhook and a wrong token without reading the body, and closes", async () => {
    const github = await hook({ provider: "forge_b", bot_ids: ["review-pr"] });
    const gitlab = await hook({ provider: "forge_a", bot_ids: ["review-pr"] });
    const disabled = await hook({ provider: "forge_b", bot_ids: ["review-pr"], enabled: false });
    const cases = [
      [`/api/webhooks/forge_b/whk_nope`, {}, 401, "invalid_webhook"],
      [`/api/webhooks/forge_c/${github.id}`, {}, 401, "invalid_webhook"],
      // An escaped segment goes through the framework's route: refused unread all the same.
      [`/api/webhooks/forge_b/${github.id.replace("_", "%5F")}x`, {}, 401, "invalid_webhook"],
      [`/api/webhooks/forge_b/${disabled.id}`, {}, 410, "webhook_disabled"],
      [`/api/webhooks/forge_a/${gitlab.id}`, { "x-gitlab-token": "wh_wrong", "x-gitlab-event": "Merge Request Hook" }, 401, "invalid_webhook_token"],
    ] as const;
    for (const [path, headers, status, error] of cases) {
      const r = await announce(path, 24 * MiB, headers);
      expect([r.status, JSON.parse(r.body).error, r.headers.connection], path).toEqual([status, error, "close"]);
    }
    const rows = (await seed.member.api.get(`/api/teams/${seed.team.id}/webhooks/${gitlab.id}/deliveries`)).body.deliveries;
    expect(rows).toMatchObject([{ status: "invalid", reason: "bad token in X-Gitlab-Token", payload_sha256: null }]);
    expect(t.services.bodyBudget.inUse).toBe(0);
  });

  it("refuses a body over its provider's limit: declared, at the header; chunked, at the chunk that passes it", async () => {
    const github = await hook({ provider: "forge_b", bot_ids: ["review-pr"] });
    const generic = await hook({ provider: "generic", bot_ids: ["review-pr"] });
    const forge = await announce(`/api/webhooks/forge_b/${github.id}`, 25 * MiB + 1);
    expect([forge.status, JSON.parse(forge.body).error, forge.headers.connection]).toEqual([413, "payload_too_large", "close"]);
    const declared = await announce(`/api/webhooks/generic/${generic.id}`, 8 * MiB + 1, { "x-service-webhook-token": generic.token });
    expect(declared.status).toBe(413);
    const chunk = "x".repeat(MiB);
    const chunked = await rawPost(
      port,
      `/api/webhooks/generic/${generic.id}`,
      { ...json, "transfer-encoding": "chunked", "x-service-webhook-token": generic.token },
      Array(9).fill(chunk),
      { end: false },
    );
    expect([chunked.status, JSON.parse(chunked.body)]).toEqual([
      413,
      { error: "payload_too_large", detail: `a generic delivery carries at most ${8 * MiB} bytes`, request_id: expect.any(String) },
    ]);
    expect(t.services.bodyBudget.inUse).toBe(0);
    expect(await t.services.metrics.text()).toMatch(/service_http_bodies_refused_total\{reason="too_large"\} 3/);
  });

  it("answers 503 server_busy with Retry-After while the body budget is spent, for deliveries and management bodies; anonymous calls are refused first", async () => {
    const github = await hook({ provider: "forge_b", bot_ids: ["review-pr"] });
    const budget = t.services.bodyBudget;
    expect(budget.take(budget.capacity - 100)).toBe(true);
    try {
      const delivery = await rawPost(port, `/api/webhooks/forge_b/${github.id}`, { ...json, "content-length": "200", "x-github-event": "ping" }, [
        "{}".padEnd(200),
      ]);
      expect([delivery.status, delivery.headers["retry-after"], JSON.parse(delivery.body).error]).toEqual([503, "1", "server_busy"]);
      const body = JSON.stringify({ provider: "forge_b", bot_ids: ["review-pr"], name: "x".repeat(150) });
      const api = await rawPost(
        port,
        `/api/teams/${seed.team.id}/webhooks`,
        { ...json, authorization: `Bearer ${seed.teamAdmin.token}`, "content-length": String(body.length) },
        [body],
      );
      expect([api.status, api.headers["retry-after"], JSON.parse(api.body).error]).toEqual([503, "1", "server_busy"]);
      const anonymous = await rawPost(port, `/api/teams/${seed.team.id}/webhooks`, { ...json, "content-length": String(body.length) }, [body]);
      expect(anonymous.status).toBe(401);
    } finally {
      budget.give(budget.capacity - 100);
    }
    expect(
      (await client(t.app, seed.teamAdmin.token).post(`/api/teams/${seed.team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] })).status,
    ).toBe(201);
    expect(budget.inUse).toBe(0);
  });
});
