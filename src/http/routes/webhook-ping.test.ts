import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";

describe.each(storeKinds())("a webhook's test delivery on %s", (kind) => {
  let t: TestApp;
  let seed: Seed;
  let base = "";
  const createHook = async (body: Record<string, unknown>) => {
    const r = await seed.teamAdmin.api.post(`${base}`, { bot_ids: ["review-pr"], ...body });
    expect(r.status).toBe(201);
    return { id: r.body.config.id as string, token: r.body.token as string };
  };

  beforeAll(async () => {
    t = await startTestApp(kind);
    seed = await seedTenancy(t);
    base = `/api/teams/${seed.team.id}/webhooks`;
  });
  afterAll(() => t.close());

  it.each([
    ["forge_b", "hmac", "ping", "ping: nothing to launch"],
    ["forge_c", "hmac", "push", "push events do not launch"],
    ["generic", "hmac", "ping", "ping: nothing to launch"],
    ["generic", "standard", "ping", "ping: nothing to launch"],
  ] as const)("sends %s's (%s) signed test event through the endpoint, recorded and launching nothing", async (provider, sign_mode, event, reason) => {
    const hook = await createHook({ provider, sign_mode });
    const r = await seed.teamAdmin.api.post(`${base}/${hook.id}/ping`, {});
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ event, reached: true, answer: { status: 200, body: { status: "filtered", reason } } });
    const shown = (await seed.member.api.get(`${base}/${hook.id}/deliveries/${r.body.delivery_id}`)).body;
    expect(shown.delivery).toMatchObject({ status: "filtered", reason });
    expect(shown.trace.decided_by).toBe("filters");
    expect(await t.store.db.selectFrom("runs").select("id").where("webhook_id", "=", hook.id).execute()).toEqual([]);
  });

  it("needs a token-mode webhook's token, and reports a wrong one as not reached", async () => {
    const hook = await createHook({ provider: "forge_a" });
    const missing = await seed.teamAdmin.api.post(`${base}/${hook.id}/ping`, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: "invalid_request", field: "token" });
    const ok = await seed.teamAdmin.api.post(`${base}/${hook.id}/ping`, { token: hook.token });
    expect(ok.body).toMatchObject({
      event: "Push Hook",
      reached: true,
      answer: { status: 200, body: { status: "filtered", reason: "push events do not launch" } },
    });
    const wrong = await seed.teamAdmin.api.post(`${base}/${hook.id}/ping`, { token: "wh_wrong" });
    expect(wrong.status).toBe(200);
    expect(wrong.body).toMatchObject({ reached: false, answer: { status: 401, body: { error: "invalid_webhook_token" } } });
  });

  it("is for team admins, and a disabled webhook's ping is not reached", async () => {
    const hook = await createHook({ provider: "forge_b" });
    expect((await seed.member.api.post(`${base}/${hook.id}/ping`, {})).status).toBe(403);
    expect((await seed.outsider.api.post(`${base}/${hook.id}/ping`, {})).status).toBe(404);
    await seed.teamAdmin.api.patch(`${base}/${hook.id}`, { enabled: false });
    const off = await seed.teamAdmin.api.post(`${base}/${hook.id}/ping`, {});
    expect(off.body).toMatchObject({ reached: false, answer: { status: 410 } });
  });
});
