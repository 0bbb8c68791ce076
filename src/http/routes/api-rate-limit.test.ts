import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenancy, startTestApp, type TestApp } from "../../test-support/harness.js";

describe("the management API's per-credential rate limit", () => {
  let t: TestApp;
  let s: Awaited<ReturnType<typeof seedTenancy>>;
  beforeAll(async () => {
    t = await startTestApp("sqlite", { SERVICE_API_RATE_LIMIT: "30" });
    s = await seedTenancy(t);
  });
  afterAll(() => t.close());

  it("answers a credential past its calls a minute with 429 rate_limited and Retry-After; other credentials go on", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await s.member.api.get("/api/users/me")).status);
    expect(statuses.every((x) => x === 200)).toBe(true);
    const over = await s.member.api.get("/api/users/me");
    expect(over.status).toBe(429);
    expect(over.body.error).toBe("rate_limited");
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
    expect((await s.teamAdmin.api.get("/api/users/me")).status).toBe(200);
  });

  it("leaves deliveries and the runner protocol to their own limits", async () => {
    for (let i = 0; i < 31; i++) await s.outsider.api.get("/api/users/me");
    expect((await s.outsider.api.get("/api/users/me")).status).toBe(429);
    const as = { authorization: `Bearer ${s.outsider.token}` };
    for (let i = 0; i < 5; i++) {
      expect((await t.app.inject({ method: "POST", url: "/api/runner/v1/claim", headers: as, payload: {} })).statusCode).not.toBe(429);
      expect((await t.app.inject({ method: "POST", url: "/api/webhooks/forge_b/whk_nope", headers: as, payload: {} })).statusCode).not.toBe(429);
    }
  });
});
