import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, startTestApp, type TestApp } from "../../test-support/harness.js";

/** Routes reachable without a token: everything else must answer an anonymous call with 401. */
const PUBLIC = new Set(["GET /healthz", "GET /readyz", "GET /metrics", "GET /api/openapi.json", "POST /api/webhooks/:provider/:id"]);

describe("every registered route", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp("sqlite");
  });
  afterAll(() => t.close());

  it("answers an anonymous call with 401 unless public by design", async () => {
    expect(t.routes.length).toBeGreaterThan(15);
    for (const r of t.routes) {
      const key = `${r.method} ${r.url}`;
      const url = r.url.replace(/:([a-z_]+)/g, "x_1");
      const res = await t.app.inject({ method: r.method as "GET", url, payload: r.method === "GET" || r.method === "DELETE" ? undefined : {} });
      expect(r.public, `${key} public flag`).toBe(PUBLIC.has(key));
      const refusedForToken = res.statusCode === 401 && JSON.parse(res.body).error === "unauthenticated";
      expect(refusedForToken, key).toBe(!PUBLIC.has(key));
    }
  });

  it("serves health, readiness, metrics and the OpenAPI document", async () => {
    const anon = client(t.app);
    expect((await anon.get("/healthz")).body).toEqual({ status: "ok" });
    expect((await anon.get("/readyz")).body).toMatchObject({ status: "ready", store: "sqlite" });
    const metrics = await anon.get("/metrics");
    expect(metrics.status).toBe(200);
    for (const name of ["service_webhook_deliveries_total", "service_launch_denied_total", "service_dlq_depth", "service_runs_retry_sweeps_total"]) {
      expect(metrics.body).toContain(`# TYPE ${name}`);
    }
    const doc = await anon.get("/api/openapi.json");
    expect(doc.body.openapi).toBe("3.1.0");
    expect(Object.keys(doc.body.paths)).toContain("/api/admin/orgs");
  });

  it("answers unknown paths with the error shape", async () => {
    const r = await client(t.app).get("/nope");
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: "not_found" });
  });
});

