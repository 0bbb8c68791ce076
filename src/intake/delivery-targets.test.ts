import { afterEach, describe, expect, it } from "vitest";
import { seedTenancy, startTestApp, type TestApp } from "../test-support/harness.js";

describe("webhook configuration cached per process", () => {
  let t: TestApp;
  afterEach(() => t.close());

  async function setup(env: Record<string, string> = {}) {
    t = await startTestApp("sqlite", env);
    const seed = await seedTenancy(t);
    const made = (await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, { provider: "generic", bot_ids: ["review-pr"], burst: 1000 })).body;
    let n = 0;
    const deliver = async (token = made.token as string) =>
      (
        await t.app.inject({
          method: "POST",
          url: `/api/webhooks/generic/${made.config.id}`,
          headers: { "content-type": "application/json", "x-service-webhook-token": token },
          payload: JSON.stringify({ bot: "review-pr", vars: {}, idempotency_key: `k${n++}` }),
        })
      ).statusCode;
    const hookUrl = `/api/teams/${seed.team.id}/webhooks/${made.config.id}`;
    return { seed, made, deliver, hookUrl };
  }

  it("sees this process's own writes at once: disable, rotate, org suspension", async () => {
    const { seed, made, deliver, hookUrl } = await setup();
    expect(await deliver()).toBe(200);
    await seed.teamAdmin.api.patch(hookUrl, { enabled: false });
    expect(await deliver()).toBe(410);
    await seed.teamAdmin.api.patch(hookUrl, { enabled: true });
    expect(await deliver()).toBe(200);
    const rotated = (await seed.teamAdmin.api.post(`${hookUrl}/rotate`)).body.token as string;
    expect(await deliver(made.token)).toBe(401);
    expect(await deliver(rotated)).toBe(200);
    await seed.admin.patch(`/api/admin/orgs/${seed.org.id}`, { status: "suspended" });
    expect(await deliver(rotated)).toBe(403);
  });

  it("sees another replica's write once the TTL has passed", async () => {
    const { made, deliver } = await setup({ SERVICE_CONFIG_CACHE_TTL: "1s" });
    expect(await deliver()).toBe(200);
    // Another replica disables the webhook: this process is not told.
    await t.store.db.updateTable("webhooks").set({ enabled: 0 }).where("id", "=", made.config.id).execute();
    expect(await deliver()).toBe(200);
    t.clock.advance(1001);
    expect(await deliver()).toBe(410);
  });

  it("reads the store on every delivery with a TTL of 0", async () => {
    const { made, deliver } = await setup({ SERVICE_CONFIG_CACHE_TTL: "0" });
    expect(await deliver()).toBe(200);
    await t.store.db.updateTable("webhooks").set({ enabled: 0 }).where("id", "=", made.config.id).execute();
    expect(await deliver()).toBe(410);
  });
});
