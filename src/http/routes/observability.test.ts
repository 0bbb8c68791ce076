import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, startTestApp, type TestApp } from "../../test-support/harness.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("request ids, the access log and the request histogram on the API", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite");
  });
  afterAll(() => t.close());

  const accessLines = () => t.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === "request" || l.msg === "request failed");

  it("keeps a plain X-Request-Id, makes a UUID for a missing or unplain one, and answers it on every reply", async () => {
    const admin = client(t.app, t.adminToken);
    const kept = await admin.call("GET", "/api/users/me", undefined, { "x-request-id": "trace-42" });
    expect([kept.status, kept.headers["x-request-id"]]).toEqual([200, "trace-42"]);
    const made = await admin.call("GET", "/api/users/me", undefined, { "x-request-id": "a b\u00e9" });
    expect(made.headers["x-request-id"]).toMatch(UUID);
    expect((await admin.get("/healthz")).headers["x-request-id"]).toMatch(UUID);
  });

  it("names the request id in every error body, and logs one access line per request without headers or bodies", async () => {
    const anon = client(t.app);
    const denied = await anon.call("GET", "/api/users/me", undefined, { "x-request-id": "r-401" });
    expect(denied.body).toEqual({ error: "unauthenticated", detail: expect.any(String), request_id: "r-401" });
    const missing = await anon.call("GET", "/api/nothing-here", undefined, { "x-request-id": "r-404" });
    expect(missing.body).toMatchObject({ error: "not_found", request_id: "r-404" });
    const bad = await client(t.app, t.adminToken).call("POST", "/api/admin/orgs", { name: "" }, { "x-request-id": "r-400" });
    expect(bad.body).toMatchObject({ error: "invalid_request", request_id: "r-400" });

    const lines = accessLines().filter((l) => String(l.request_id).startsWith("r-"));
    expect(lines.map((l) => [l.request_id, l.method, l.route, l.status, l.level])).toEqual([
      ["r-401", "GET", "/api/users/me", 401, 30],
      ["r-404", "GET", "unmatched", 404, 30],
      ["r-400", "POST", "/api/admin/orgs", 400, 30],
    ]);
    for (const l of lines) {
      expect(typeof l.duration_ms).toBe("number");
      expect(
        Object.keys(l).some((k) => /header|body|authorization|cookie/i.test(k)),
        JSON.stringify(l),
      ).toBe(false);
    }
  });

  it("times each request in service_http_request_duration_seconds by route template, method and status class", async () => {
    const admin = client(t.app, t.adminToken);
    const org = (await admin.post("/api/admin/orgs", { name: "Timed" })).body;
    await admin.get(`/api/admin/orgs/${org.id}`);
    await admin.get(`/api/admin/orgs/${org.id}`);
    const text = (await admin.get("/metrics")).body as string;
    expect(text).toMatch(/^service_http_request_duration_seconds_count\{route="\/api\/admin\/orgs\/:id",method="GET",status_class="2xx"\} 2$/m);
    expect(text).toMatch(/^service_http_request_duration_seconds_count\{route="\/api\/admin\/orgs",method="POST",status_class="2xx"\} \d+$/m);
    expect(text).not.toContain(org.id);
  });

  it("sends people who open / to the console", async () => {
    const res = await t.app.inject({ url: "/" });
    expect([res.statusCode, res.headers.location]).toEqual([302, "/console"]);
  });
});

describe("/metrics with SERVICE_METRICS_TOKEN", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite", { SERVICE_METRICS_TOKEN: "scrape-secret-1" });
  });
  afterAll(() => t.close());

  it("asks for the bearer token, and a user's token does not stand in for it", async () => {
    const anon = await client(t.app).get("/metrics");
    expect([anon.status, anon.body.error, anon.headers["www-authenticate"]]).toEqual([401, "unauthenticated", 'Bearer realm="metrics"']);
    expect((await client(t.app, "wrong").get("/metrics")).status).toBe(401);
    expect((await client(t.app, t.adminToken).get("/metrics")).status).toBe(401);
    const scraped = await client(t.app, "scrape-secret-1").get("/metrics");
    expect(scraped.status).toBe(200);
    expect(scraped.body).toContain("service_http_request_duration_seconds");
  });
});

describe("DELETE with a JSON content type and no body", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite");
  });
  afterAll(() => t.close());

  it("is taken as a DELETE without a body; a POST so sent is still refused", async () => {
    const admin = client(t.app, t.adminToken);
    const token = (await admin.post("/api/users/me/tokens", { name: "spare" })).body;
    const headers = { authorization: `Bearer ${t.adminToken}`, "content-type": "application/json" };
    const deleted = await t.app.inject({ method: "DELETE", url: `/api/users/me/tokens/${token.id}`, headers });
    expect(deleted.statusCode).toBe(204);
    const post = await t.app.inject({ method: "POST", url: "/api/users/me/tokens", headers: { ...headers, "content-length": "0" } });
    expect([post.statusCode, post.json().error]).toEqual([400, "invalid_request"]);
  });
});

describe("the OpenAPI document", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite");
  });
  afterAll(() => t.close());

  it("leaves out the console's pages and GET /, and keeps the API's routes", async () => {
    const paths = Object.keys((await client(t.app).get("/api/openapi.json")).body.paths);
    expect(paths.filter((p) => p === "/" || p.startsWith("/console"))).toEqual([]);
    expect(paths).toContain("/api/users/me");
    expect(t.routes.some((r) => r.url.startsWith("/console/"))).toBe(true);
  });
});
