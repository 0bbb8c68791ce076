import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenancy, startTestApp, type TestApp } from "../../test-support/harness.js";

type Seed = Awaited<ReturnType<typeof seedTenancy>>;

describe("the console's headers and cookies", () => {
  let t: TestApp;
  let s: Seed;
  let token: string;
  let runId: string;

  beforeAll(async () => {
    t = await startTestApp("sqlite", { SERVICE_ORG_DEFAULT_MONTHLY_RUN_QUOTA: "10" });
    s = await seedTenancy(t);
    token = (await s.orgAdmin.api.post("/api/users/me/tokens", { name: "console" })).body.token;
    await s.admin.put(`/api/teams/${s.team.id}/members/${s.orgAdmin.id}`, { role: "admin" });
    runId = (await s.orgAdmin.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr" })).body.id;
  });
  afterAll(() => t.close());

  const get = (url: string, cookie?: string) => t.app.inject({ method: "GET", url, headers: cookie === undefined ? {} : { cookie } });
  const pages = () => [
    "/console",
    `/console/teams/${s.team.id}`,
    `/console/teams/${s.team.id}/runs`,
    `/console/runs/${runId}`,
    `/console/orgs/${s.org.id}/usage`,
  ];

  it("sends a policy with no inline script or style, no framing and nothing from elsewhere, on every page", async () => {
    for (const [url, cookie] of [["/console", undefined], ...pages().map((p) => [p, `console_token=${encodeURIComponent(token)}`])] as const) {
      const r = await get(url, cookie);
      expect(r.statusCode, url).toBe(200);
      const csp = String(r.headers["content-security-policy"]);
      expect(csp, url).toContain("default-src 'self'");
      expect(csp, url).toContain("script-src 'self'");
      expect(csp, url).toContain("frame-ancestors 'none'");
      expect(csp, url).not.toContain("unsafe-inline");
      expect(r.headers["x-content-type-options"], url).toBe("nosniff");
      expect(r.headers["referrer-policy"], url).toBe("same-origin");
      // What the policy would block must not be there: inline scripts, handlers, style attributes or elements.
      expect(r.body, url).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/i);
      expect(r.body, url).not.toMatch(/\son[a-z]+\s*=/i);
      expect(r.body, url).not.toMatch(/\sstyle\s*=|<style/i);
    }
    const usage = await get(`/console/orgs/${s.org.id}/usage`, `console_token=${encodeURIComponent(token)}`);
    expect(usage.body).toMatch(/<span class="w\d+"><\/span>/);
    expect((await get("/console/style.css")).body).toContain(".bar > span.w37 { width: 37%; }");
  });

  it("marks the API's answers nosniff too", async () => {
    const r = await s.member.api.get("/api/users/me");
    expect(r.status).toBe(200);
    expect(r.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("answers a malformed cookie with the sign-in page, never a 500", async () => {
    for (const cookie of [
      "console_token=%E0%A4%A",
      "console_token=%",
      "console_token",
      "=; ;;",
      "console_token=\u00ff%zz",
      `console_token=${"%".repeat(50)}`,
    ]) {
      const r = await get("/console", cookie);
      expect([200, 401], cookie).toContain(r.statusCode);
      expect(r.body, cookie).toContain('action="/console/sign-in"');
    }
    const out = await t.app.inject({
      method: "POST",
      url: "/console/sign-out",
      headers: { origin: "http://127.0.0.1:8080", cookie: "console_token=%E0%A4%A" },
    });
    expect(out.statusCode).toBe(303);
  });
});
