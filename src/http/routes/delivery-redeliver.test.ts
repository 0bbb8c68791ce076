import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubPullBody } from "../../intake/fixtures/fixtures.js";
import { seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";

const sign = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

const prOpened = (sha: string) => githubPullBody(sha, { body: "private code: const SECRET_MARKER = 1;" });

describe.each(storeKinds())("kept requests and redelivery on %s", (kind) => {
  let t: TestApp;
  let seed: Seed;
  let base = "";

  const createHook = async (body: Record<string, unknown>) => {
    const r = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, body);
    expect(r.status).toBe(201);
    return { id: r.body.config.id as string, token: r.body.token as string };
  };
  const github = (hook: { id: string; token: string }, body: string) =>
    t.app.inject({
      method: "POST",
      url: `/api/webhooks/forge_b/${hook.id}`,
      payload: body,
      headers: {
        "content-type": "application/json",
        "x-github-event": "pull_request",
        "x-hub-signature-256": sign(hook.token, body),
        "x-github-delivery": "gd-7",
      },
    });
  const latest = async (hookId: string) => (await seed.member.api.get(`${base}/${hookId}/deliveries?limit=1`)).body.deliveries[0];
  const show = async (hookId: string, id: string) => (await seed.member.api.get(`${base}/${hookId}/deliveries/${id}`)).body;
  const redeliver = (hookId: string, id: string, body?: unknown, as = seed.teamAdmin.api) => as.post(`${base}/${hookId}/deliveries/${id}/redeliver`, body);

  beforeAll(async () => {
    t = await startTestApp(kind, { SERVICE_WEBHOOK_SYNC_DEBOUNCE: "0", SERVICE_DELIVERY_PAYLOAD_MAX_BYTES: "65536" });
    seed = await seedTenancy(t);
    base = `/api/teams/${seed.team.id}/webhooks`;
  });
  afterAll(() => t.close());

  it("keeps nothing unless the webhook asks, and says so", async () => {
    const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"] });
    expect((await github(hook, prOpened("1".repeat(40)))).statusCode).toBe(200);
    const row = await latest(hook.id);
    const shown = await show(hook.id, row.id);
    expect(shown.request).toBeNull();
    expect(shown.request_missing).toBe("keep_payloads is off for this webhook");
    const again = await redeliver(hook.id, row.id);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("conflict");
    expect(await t.store.db.selectFrom("kept_requests").select("id").where("webhook_id", "=", hook.id).execute()).toEqual([]);
  });

  it("keeps a refused delivery sealed, shows it redacted, and sends it again once the config is fixed", async () => {
    const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"], event_allowlist: ["issues"], keep_payloads: true });
    const body = prOpened("2".repeat(40));
    expect((await github(hook, body)).statusCode).toBe(200);
    const filtered = await latest(hook.id);
    expect(filtered.status).toBe("filtered");

    const shown = await show(hook.id, filtered.id);
    expect(shown.request).toMatchObject({ body_kept: true, body_encoding: "utf8", body, body_bytes: Buffer.byteLength(body) });
    expect(shown.request.headers["x-hub-signature-256"]).toBe("[redacted]");
    expect(shown.request.headers["x-github-event"]).toBe("pull_request");
    // Sealed at rest: neither the body nor the signature is readable in the store.
    const stored = await t.store.db.selectFrom("kept_requests").selectAll().where("webhook_id", "=", hook.id).execute();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain("SECRET_MARKER");
    expect(JSON.stringify(stored)).not.toContain(sign(hook.token, body).slice(7));
    expect(t.logs.join("\n")).not.toContain("SECRET_MARKER");

    // A member reads, only a team admin sends again.
    expect((await redeliver(hook.id, filtered.id, {}, seed.member.api)).status).toBe(403);
    expect((await seed.teamAdmin.api.patch(`${base}/${hook.id}`, { event_allowlist: [] })).status).toBe(200);
    const sent = await redeliver(hook.id, filtered.id);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      redelivery_of: filtered.id,
      proof: "verified_again",
      fresh_key: false,
      answer: { status: 200, body: { status: "launched" } },
    });
    const [launchedId] = sent.body.delivery_ids;
    const launched = await show(hook.id, launchedId);
    expect(launched.delivery).toMatchObject({ status: "launched", subject_sha: "2".repeat(40) });
    expect(launched).toMatchObject({ redelivery_of: filtered.id, redelivery: { proof: "verified_again", fresh_key: false, requested_by: seed.teamAdmin.id } });
    expect(launched.request.body).toBe(body);
    expect((await show(hook.id, filtered.id)).redelivered_as).toEqual([launchedId]);

    // Idempotency holds: the launched event sent again is a duplicate of its run …
    const dup = await redeliver(hook.id, launchedId, null);
    expect(dup.body.answer.body).toMatchObject({ status: "duplicate", run_id: launched.delivery.run_id });
    // … unless a fresh key is asked for, which the row's key records.
    const fresh = await redeliver(hook.id, launchedId, { fresh_key: true });
    expect(fresh.body).toMatchObject({ fresh_key: true, answer: { status: 200, body: { status: "launched" } } });
    const freshRow = await show(hook.id, fresh.body.delivery_ids[0]);
    expect(freshRow.delivery.run_id).not.toBe(launched.delivery.run_id);
    expect(freshRow.delivery.idempotency_key).toMatch(/\|again:[0-9a-f-]{36}$/);
    expect(freshRow.redelivery.fresh_key).toBe(true);
    expect((await redeliver(hook.id, launchedId, { fresh_key: "yes" })).status).toBe(400);
  });

  it("sends again what a rotated secret no longer proves, recorded as proven on arrival; refuses a disabled webhook", async () => {
    const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"], event_allowlist: ["issues"], keep_payloads: true });
    expect((await github(hook, prOpened("3".repeat(40)))).statusCode).toBe(200);
    const filtered = await latest(hook.id);
    await seed.teamAdmin.api.patch(`${base}/${hook.id}`, { event_allowlist: [] });
    expect((await seed.teamAdmin.api.post(`${base}/${hook.id}/rotate`, {})).status).toBe(200);
    const sent = await redeliver(hook.id, filtered.id);
    expect(sent.body).toMatchObject({ proof: "verified_on_arrival", answer: { body: { status: "launched" } } });
    await seed.teamAdmin.api.patch(`${base}/${hook.id}`, { enabled: false });
    const off = await redeliver(hook.id, filtered.id);
    expect([off.status, off.body.error]).toEqual([410, "webhook_disabled"]);
  });

  it("keeps a token-mode request without its token, and replays it proven on arrival", async () => {
    const hook = await createHook({ provider: "generic", bot_ids: ["review-pr"], keep_payloads: true });
    const deliver = (payload: unknown) =>
      t.app.inject({
        method: "POST",
        url: `/api/webhooks/generic/${hook.id}`,
        headers: { "x-service-webhook-token": hook.token, "content-type": "application/json" },
        payload: payload as object,
      });
    expect((await deliver({ bot: "nope" })).statusCode).toBe(400);
    const refused = await latest(hook.id);
    const shown = await show(hook.id, refused.id);
    expect(shown.request.headers["x-service-webhook-token"]).toBe("[redacted]");
    const stored = await t.store.db.selectFrom("kept_requests").selectAll().where("webhook_id", "=", hook.id).execute();
    expect(JSON.stringify(stored)).not.toContain(hook.token);
    expect((await deliver({ bot: "review-pr", vars: { a: "1" } })).statusCode).toBe(200);
    const launched = await latest(hook.id);
    const again = await redeliver(hook.id, launched.id, { fresh_key: true });
    expect(again.body).toMatchObject({ proof: "verified_on_arrival", answer: { status: 200, body: { status: "launched" } } });
  });

  it("records a body over the cap as too large to keep, and forgets kept requests after the retention period", async () => {
    const hook = await createHook({ provider: "forge_b", bot_ids: ["review-pr"], keep_payloads: true });
    const big = JSON.parse(prOpened("4".repeat(40)));
    big.pull_request.body = "x".repeat(70_000);
    expect((await github(hook, JSON.stringify(big))).statusCode).toBe(200);
    const row = await latest(hook.id);
    const shown = await show(hook.id, row.id);
    expect(shown.request).toMatchObject({ body_kept: false, body: null, body_bytes: Buffer.byteLength(JSON.stringify(big)) });
    expect((await redeliver(hook.id, row.id)).status).toBe(409);

    expect(await t.services.keptRequests.tick(t.clock.now() + 6 * 86_400_000)).toBe(0);
    expect(await t.services.keptRequests.tick(t.clock.now() + 8 * 86_400_000)).toBeGreaterThan(0);
    const gone = await show(hook.id, row.id);
    expect(gone.request).toBeNull();
    expect(gone.request_missing).toMatch(/retention ended/);
    expect(await t.store.db.selectFrom("kept_request_rows").select("delivery_id").where("delivery_id", "=", row.id).execute()).toEqual([]);
  });
});
