import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, startTestApp, type TestApp } from "../test-support/harness.js";

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}
interface Document {
  tags?: { name: string; description?: string }[];
  info: { description?: string; license?: { name: string } };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
}

/** The served document, as a client reads it: every operation described, every answer typed. */
describe("the OpenAPI document", () => {
  let t: TestApp;
  let doc: Document;
  const operations: { key: string; op: Operation }[] = [];

  beforeAll(async () => {
    t = await startTestApp("sqlite");
    const res = await t.app.inject({ method: "GET", url: "/api/openapi.json" });
    expect(res.statusCode).toBe(200);
    doc = JSON.parse(res.body);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) operations.push({ key: `${method.toUpperCase()} ${path}`, op });
    }
  });
  afterAll(() => t.close());

  it("names its licence and says what the service is", () => {
    expect(doc.info.license?.name).toBe("MIT");
    expect(doc.info.description?.length ?? 0).toBeGreaterThan(40);
  });

  it("lists every API route and leaves the console out", () => {
    const listed = new Set(operations.map((o) => o.key));
    const apiRoutes = t.routes.filter((r) => r.url.startsWith("/api/") && r.url !== "/api/openapi.json" && !r.url.endsWith("/stream"));
    const missing = apiRoutes.map((r) => `${r.method} ${r.url.replace(/:([a-z_]+)/g, "{$1}")}`).filter((k) => !listed.has(k));
    expect(missing, "API routes absent from the document").toEqual([]);
    expect(operations.filter((o) => o.key.includes("/console")).map((o) => o.key)).toEqual([]);
  });

  it("gives every operation a summary, a tag, a unique operationId and typed success and error answers", () => {
    expect(operations.length).toBeGreaterThan(100);
    const faults: string[] = [];
    const ids = new Map<string, string>();
    const declared = new Set((doc.tags ?? []).filter((t) => t.description).map((t) => t.name));
    for (const { key, op } of operations) {
      if (!op.summary) faults.push(`${key}: no summary`);
      if (!op.tags?.length) faults.push(`${key}: no tag`);
      for (const tag of op.tags ?? []) if (!declared.has(tag)) faults.push(`${key}: tag ${tag} is not described in the document's tags`);
      if (!op.operationId) faults.push(`${key}: no operationId`);
      else if (ids.has(op.operationId)) faults.push(`${key}: operationId ${op.operationId} also names ${ids.get(op.operationId)}`);
      else ids.set(op.operationId, key);
      const responses = op.responses ?? {};
      const success = Object.keys(responses).filter((s) => /^2\d\d$/.test(s));
      if (success.length === 0) faults.push(`${key}: no success response`);
      for (const status of success) {
        if (status !== "204" && !responses[status]?.content) faults.push(`${key}: ${status} has no response schema`);
      }
      if (!Object.keys(responses).some((s) => s.startsWith("4"))) faults.push(`${key}: no error response`);
      for (const [status, r] of Object.entries(responses)) {
        if (status.startsWith("4") && !JSON.stringify(r.content ?? {}).includes("#/components/schemas/ErrorBody"))
          faults.push(`${key}: ${status} is not the ErrorBody`);
      }
    }
    expect(faults).toEqual([]);
  });

  it("documents every field an error body carries, and the launch denial envelope", async () => {
    const error = doc.components.schemas.ErrorBody;
    expect(Object.keys(error?.properties ?? {}).sort()).toEqual(["detail", "error", "field", "request_id"]);
    expect(error?.required?.sort()).toEqual(["detail", "error"]);
    expect(Object.keys(doc.components.schemas.DenialEnvelope?.properties ?? {}).sort()).toEqual(["detail", "error", "reset_at"]);
    // A real refusal carries nothing the schema leaves out (the schema also serializes the answer).
    const api = client(t.app, t.adminToken);
    const bad = await api.post("/api/admin/orgs", { name: "Acme", bogus: 1 });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body).sort()).toEqual(["detail", "error", "field", "request_id"]);
  });
});
