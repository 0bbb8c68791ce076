import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AddressInfo } from "node:net";
import { LIMIT_FIELDS } from "../config/resource-limits.js";
import { answerChecker } from "../test-support/answer-check.js";
import { client, seedTenancy, startTestApp, type TestApp } from "../test-support/harness.js";
import { DeliveryAccepted, DeliveryAnswered } from "./routes/delivery-answer-bodies.js";
import { DELIVERY_ROUTE } from "./routes/webhook-delivery.js";

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
  components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[]; additionalProperties?: unknown }> };
}

/** What a client would miss in one operation: its summary, tag, operationId (unique, kept in `ids`), success and error answers. */
function operationFaults(key: string, op: Operation, declaredTags: Set<string>, ids: Map<string, string>): string[] {
  const faults: string[] = [];
  if (!op.summary) faults.push(`${key}: no summary`);
  if (!op.tags?.length) faults.push(`${key}: no tag`);
  for (const tag of op.tags ?? []) if (!declaredTags.has(tag)) faults.push(`${key}: tag ${tag} is not described in the document's tags`);
  if (!op.operationId) faults.push(`${key}: no operationId`);
  else if (ids.has(op.operationId)) faults.push(`${key}: operationId ${op.operationId} also names ${ids.get(op.operationId)}`);
  else ids.set(op.operationId, key);
  return [...faults, ...answerFaults(key, op.responses ?? {})];
}

/** A success answer with a schema (but a 204), and every 4xx answer the ErrorBody. */
function answerFaults(key: string, responses: NonNullable<Operation["responses"]>): string[] {
  const faults: string[] = [];
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
  return faults;
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
    for (const { key, op } of operations) faults.push(...operationFaults(key, op, declared, ids));
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

  it("names each resource's body, every field required and no other field allowed", () => {
    const open = new Set(["ErrorBody", "DenialEnvelope"]);
    const named = Object.keys(doc.components.schemas).filter((n) => !open.has(n));
    for (const main of ["Run", "RunDetail", "Delivery", "Webhook", "Org", "Team", "Schedule", "Trigger", "Card", "Bot", "Runner", "Session"])
      expect(named).toContain(main);
    for (const name of named) {
      const schema = doc.components.schemas[name];
      expect(schema, name).toBeDefined();
      expect(schema?.additionalProperties, name).toBe(false);
      // Every field is always sent, but a provisioned repository bot's webhook and whether the call wrote the forge.
      const sometimes = name === "ProvisionedRepoBot" ? ["forge_written", "webhook"] : [];
      const always = Object.keys(schema?.properties ?? {}).filter((k) => !sometimes.includes(k));
      expect([...(schema?.required ?? [])].sort(), name).toEqual(always.sort());
    }
    const run = doc.components.schemas.Run?.properties as Record<string, { type?: unknown; enum?: unknown[] }>;
    expect(run.status?.enum).toEqual(["queued", "running", "succeeded", "failed", "failed_resumable", "cancelled"]);
    expect(run.finished_at?.type).toEqual(["string", "null"]);
    const getRun = doc.paths["/api/runs/{id}"]?.get?.responses?.["200"]?.content?.["application/json"]?.schema;
    expect(JSON.stringify(getRun)).toContain("#/components/schemas/RunDetail");
    const listRuns = doc.paths["/api/teams/{id}/runs"]?.get?.responses?.["200"]?.content?.["application/json"]?.schema as { additionalProperties?: unknown };
    expect(listRuns.additionalProperties).toBe(false);
  });

  it("spells out the runner protocol: the ticket closed, its limits by name, its secrets this attempt's only, and the empty claim", () => {
    type Schema = { properties?: Record<string, Schema>; additionalProperties?: unknown; description?: string; $ref?: string };
    const ticket = doc.components.schemas.RunnerTicket as Schema;
    const bot = ticket.properties?.bot;
    expect(bot?.additionalProperties).toBe(false);
    expect(Object.keys(bot?.properties?.limits?.properties ?? {})).toEqual(LIMIT_FIELDS.map((f) => f.file));
    expect(bot?.properties?.limits?.additionalProperties).toBe(false);
    for (const secret of ["claim_token", "credentials"]) expect(ticket.properties?.[secret]?.description, secret).toMatch(/this attempt (only|alone)/);
    const answers = (p: string) => doc.paths[`/api/runner/v1/${p}`]?.post?.responses ?? {};
    const schemaOf = (p: string, status: string) => JSON.stringify(answers(p)[status]?.content?.["application/json"]?.schema);
    expect(schemaOf("claim", "200")).toContain("#/components/schemas/RunnerTicket");
    expect(answers("claim")["204"]).toBeDefined();
    expect(schemaOf("runs/{id}/heartbeat", "200")).toContain("#/components/schemas/RunnerHeartbeat");
    expect(schemaOf("runs/{id}/output", "200")).toContain("#/components/schemas/RunnerOutputTaken");
    expect(schemaOf("runs/{id}/finish", "200")).toContain("#/components/schemas/RunnerFinished");
  });

  it("checks every answer a test receives against its route's documented schema", async () => {
    const answers = answerChecker();
    const route = t.routes.find((r) => r.url === "/api/runs/:id");
    expect(route).toBeDefined();
    const schema = { $ref: "Run#" };
    const api = client(t.app, t.adminToken);
    const org = (await api.post("/api/admin/orgs", { name: "Checked" })).body;
    const team = (await api.post(`/api/orgs/${org.id}/teams`, { name: "T" })).body;
    const run = (await api.post("/api/runs", { team_id: team.id, bot: "review-pr" })).body;
    answers.check({ method: "GET", route: "/api/runs/:id", status: 200, schema, payload: run });
    expect(answers.faults).toEqual([]);
    answers.check({ method: "GET", route: "/api/runs/:id", status: 200, schema, payload: { ...run, extra: 1 } });
    answers.check({ method: "GET", route: "/api/runs/:id", status: 200, schema, payload: { ...run, attempt: "1" } });
    answers.check({ method: "GET", route: "/api/runs/:id", status: 200, schema, payload: { ...run, status: "lost" } });
    answers.check({ method: "GET", route: "/api/runs/:id", status: 201, schema: undefined, payload: run });
    expect(answers.faults).toEqual([
      "GET /api/runs/:id → 200: / must NOT have additional properties (extra)",
      "GET /api/runs/:id → 200: /attempt must be integer",
      "GET /api/runs/:id → 200: /status must be equal to one of the allowed values",
      "GET /api/runs/:id → 201: the document gives no schema for this status",
    ]);
    // The app's own answers passed the same check (the harness fails the file otherwise).
    expect(t.answerFaults).toEqual([]);
  });

  it("documents each delivery answer closed, and checks the ones the fast path sends on the wire", async () => {
    const schemas = doc.components.schemas;
    const delivery = doc.paths["/api/webhooks/{provider}/{id}"]?.post?.responses ?? {};
    const refsOf = (status: string) => JSON.stringify(delivery[status]?.content?.["application/json"]?.schema ?? {}).match(/Delivery\w+/g);
    expect(refsOf("200")).toEqual([
      "DeliveryLaunched",
      "DeliveryDuplicate",
      "DeliveryBotFiltered",
      "DeliveryFiltered",
      "DeliveryStopped",
      "DeliveryInvalid",
      "DeliveryLaunchError",
      "DeliveryResults",
    ]);
    expect(refsOf("202")).toEqual(["DeliveryDeferred", "DeliveryDeferredResults", "DeliveryCarded"]);
    expect(schemas.DeliveryLaunched?.required?.sort()).toEqual(["bot", "delivery_id", "run_id", "status"]);

    // Plain requests on a real socket are answered by the fast path, ahead of Fastify's route.
    const s = await seedTenancy(t);
    const hook = (await s.teamAdmin.api.post(`/api/teams/${s.team.id}/webhooks`, { provider: "generic", bot_ids: ["review-pr"] })).body;
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/webhooks/generic/${hook.config.id}`;
    const before = t.answersChecked.length;
    const post = (token: string) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-webhook-token": token },
        body: JSON.stringify({ bot: "review-pr" }),
      });
    const launched = await post(hook.token);
    expect([launched.status, ((await launched.json()) as { status: string }).status]).toEqual([200, "launched"]);
    const refused = await post("not-the-token");
    expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([401, "invalid_webhook_token"]);
    expect(t.answersChecked.slice(before)).toEqual([`POST ${DELIVERY_ROUTE} → 200`, `POST ${DELIVERY_ROUTE} → 401`]);

    // The check fails a field too many or missing, a status word the answer's status does not document, and a 202 body sent as 200.
    const answers = answerChecker();
    const ok = { status: "launched", run_id: "run_1", delivery_id: "dlv_1", bot: "review-pr" };
    const check = (status: number, payload: unknown) =>
      answers.check({ method: "POST", route: DELIVERY_ROUTE, status, schema: status === 202 ? DeliveryAccepted : DeliveryAnswered, payload });
    check(200, ok);
    check(200, { status: "filtered", delivery_id: "dlv_1", reason: "author not allowed", stopped: 0 });
    check(202, { status: "deferred", delivery_id: "dlv_1", bot: "review-pr", launch_at: "2026-01-01T00:00:00.000Z" });
    expect(answers.faults).toEqual([]);
    check(200, { ...ok, extra: 1 });
    check(200, { status: "launched", delivery_id: "dlv_1", bot: "review-pr" });
    check(200, { ...ok, status: "deferred" });
    check(202, ok);
    check(200, { status: "launched", results: [{ ...ok, run_id: 7 }] });
    // A redelivery's copy of the endpoint's answer is held to the same schemas.
    const again = (body: unknown) => ({
      redelivery_of: "dlv_0",
      delivery_ids: ["dlv_1"],
      proof: "verified_again",
      fresh_key: false,
      answer: { status: 200, body },
    });
    const redeliverRoute = "/api/teams/:id/webhooks/:webhook_id/deliveries/:delivery_id/redeliver";
    const redelivered = (body: unknown) =>
      answers.check({ method: "POST", route: redeliverRoute, status: 200, schema: { $ref: "RedeliveryResult#" }, payload: again(body) });
    redelivered(ok);
    redelivered({ error: "rate_limited", detail: "x" });
    expect(answers.faults.filter((f) => f.includes(redeliverRoute))).toEqual([]);
    redelivered({ status: "launched" });
    expect(answers.faults.filter((f) => f.includes(redeliverRoute))).toHaveLength(1);
    expect(answers.faults.filter((f) => !f.includes(redeliverRoute)).map((f) => f.slice(0, f.indexOf(": ")))).toEqual(
      Array(3).fill(`POST ${DELIVERY_ROUTE} → 200`).concat(`POST ${DELIVERY_ROUTE} → 202`, `POST ${DELIVERY_ROUTE} → 200`),
    );
  });
});
