import { createHmac } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PRODUCT } from "../../core/product.js";
import { startTracing, stopTracing } from "../../core/tracing.js";
import { WORLD } from "../../test-support/fake-forges/world.js";
import { fakeOf, forgeHook, githubLikeIssueOpened, startForgeWorld, type ForgeWorld, type Hook } from "../../test-support/forge-deliveries.js";
import { seedTenancy, startListeningTestApp, storeKinds } from "../../test-support/harness.js";
import { FakeCollector, SPAN_CLIENT, SPAN_SERVER, STATUS_ERROR, type CollectedSpan } from "../../test-support/otlp-collector.js";

type Span = CollectedSpan;
const SERVER = SPAN_SERVER;
const CLIENT = SPAN_CLIENT;
const ERROR = STATUS_ERROR;

const OTEL_VARS = [
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_RESOURCE_ATTRIBUTES",
  "OTEL_BSP_SCHEDULE_DELAY",
  "OTEL_SERVICE_NAME",
  "OTEL_EXPORTER_OTLP_PROTOCOL",
];
/** A caller's W3C trace context: its trace and its span. */
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

describe.each(storeKinds())("OpenTelemetry traces of a delivery on %s", (kind) => {
  const collector = new FakeCollector();
  let w: ForgeWorld;
  let hook: Hook;
  let requestNo = 0;

  beforeAll(async () => {
    await collector.start();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
    process.env.OTEL_EXPORTER_OTLP_HEADERS = "x-collector-key=collector-secret-1";
    process.env.OTEL_RESOURCE_ATTRIBUTES = "deployment.environment.name=test";
    process.env.OTEL_BSP_SCHEDULE_DELAY = "50";
    delete process.env.OTEL_SERVICE_NAME;
    w = await startForgeWorld(kind);
    hook = await forgeHook(w, "forge_b", { auto_implement_on_open: true, bot_ids: ["improve"] });
  });
  afterAll(async () => {
    await stopTracing();
    await w.close();
    await collector.close();
    for (const name of OTEL_VARS) delete process.env[name];
  });
  beforeEach(async () => {
    w.t.clock.advance(60_000);
    fakeOf(w, "forge_b").clearFaults();
    collector.clear();
    delete process.env.OTEL_EXPORTER_OTLP_PROTOCOL;
    expect(await startTracing(PRODUCT)).toEqual({ on: true, protocol: "http/json", warnings: [] });
  });

  /** Delivers an issue opened by maria (no author_association: the forge is asked her role), traced; answers the spans of its trace. */
  const deliverTraced = async (extra: Record<string, string> = {}) => {
    const requestId = `trace-test-${++requestNo}`;
    const body = JSON.stringify(githubLikeIssueOpened(WORLD.maria.login, "NONE"));
    const res = await w.t.app.inject({
      method: "POST",
      url: `/api/webhooks/forge_b/${hook.id}`,
      payload: body,
      headers: {
        "content-type": "application/json",
        "x-github-event": "issues",
        "x-hub-signature-256": `sha256=${createHmac("sha256", hook.token).update(body).digest("hex")}`,
        "x-request-id": requestId,
        ...extra,
      },
    });
    await stopTracing(); // flushes every span to the collector
    const root = collector.spans.find((s) => s.name === "delivery" && s.attributes["request.id"] === requestId);
    expect(root).toBeDefined();
    return { res, requestId, root: root!, spans: collector.spans.filter((s) => s.traceId === root!.traceId), text: collector.bodies.join("\n") };
  };

  const one = (spans: Span[], name: string) => {
    const found = spans.filter((s) => s.name === name);
    expect(found, name).toHaveLength(1);
    return found[0]!;
  };

  it("a launched delivery: the delivery's span, with verification, decision (its forge call and HTTP request) and the store's commit under it", async () => {
    const { res, requestId, root, spans, text } = await deliverTraced();
    expect(res.statusCode).toBe(200);
    const answer = JSON.parse(res.body) as { status: string; delivery_id: string; run_id: string };
    expect(answer.status).toBe("launched");

    expect(root.kind).toBe(SERVER);
    expect(root.parentSpanId ?? "").toBe("");
    expect(root.attributes).toMatchObject({
      "request.id": requestId,
      "delivery.provider": "forge_b",
      "webhook.id": hook.id,
      "http.response.status_code": 200,
      "delivery.answer": "launched",
      "delivery.id": answer.delivery_id,
      "run.id": answer.run_id,
    });

    const verify = one(spans, "delivery.verify");
    expect(verify.parentSpanId).toBe(root.spanId);
    expect(verify.attributes).toMatchObject({ "delivery.provider": "forge_b", "webhook.sign_mode": "hmac", "delivery.proven": true });

    const decide = one(spans, "delivery.decide");
    expect(decide.parentSpanId).toBe(root.spanId);
    expect(decide.attributes).toMatchObject({ "delivery.decision": "launch", "delivery.launches": 1 });

    const forgeCall = one(spans, "forge.permissionOf");
    expect(forgeCall.parentSpanId).toBe(decide.spanId);
    expect(forgeCall.attributes).toMatchObject({ "forge.provider": "forge_b", "server.address": "127.0.0.1" });
    expect(forgeCall.status.code ?? 0).not.toBe(ERROR);

    const request = one(spans, "GET /api/v3/repos/{}/{}/collaborators/{}/permission");
    expect(request.kind).toBe(CLIENT);
    expect(request.parentSpanId).toBe(forgeCall.spanId);
    expect(request.attributes).toMatchObject({
      "http.request.method": "GET",
      "server.address": "127.0.0.1",
      "url.template": "/api/v3/repos/{}/{}/collaborators/{}/permission",
      "http.response.status_code": 200,
    });

    const commits = spans.filter((s) => s.name === "store.commit");
    expect(commits.length).toBeGreaterThanOrEqual(1);
    for (const c of commits) expect(c.parentSpanId).toBe(root.spanId);
    expect(commits.map((c) => c.attributes["ledger.answer"])).toContain("launched");
    expect(commits[0]!.attributes["db.system.name"]).toBe(kind === "sqlite" ? "sqlite" : "postgresql");

    // The resource: the product's name and version, and what OTEL_RESOURCE_ATTRIBUTES adds.
    expect(collector.resources[0]).toMatchObject({ "service.name": PRODUCT.name, "service.version": PRODUCT.version, "deployment.environment.name": "test" });
    // OTEL_EXPORTER_OTLP_HEADERS reach the collector.
    expect(collector.headers[0]).toMatchObject({ "x-collector-key": "collector-secret-1" });

    // No secret, no payload, no tenant's name: the webhook's secret, the forge token, the issue's text, the repository, the author.
    for (const kept of [hook.token, "tok-forge_b", "Sprockets are slow", "They take 2 s", WORLD.repo, "widgets", WORLD.maria.login, "collector-secret-1"]) {
      expect(text, kept).not.toContain(kept);
    }
  });

  it("a forge failure: the forge call's span and its request's are failed, the delivery's answer kept", async () => {
    fakeOf(w, "forge_b").fault({ match: /permission/, status: 500 });
    const { res, root, spans } = await deliverTraced();
    expect(JSON.parse(res.body).status).toBe("launch_error");
    const forgeCall = spans.find((s) => s.name === "forge.permissionOf")!;
    expect(forgeCall.status.code).toBe(ERROR);
    expect(forgeCall.attributes["error.type"]).toBe("forge_unavailable");
    const requests = spans.filter((s) => s.name === "GET /api/v3/repos/{}/{}/collaborators/{}/permission");
    expect(requests.length).toBeGreaterThanOrEqual(1);
    for (const r of requests) {
      expect(r.parentSpanId).toBe(forgeCall.spanId);
      expect(r.status.code).toBe(ERROR);
      expect(r.attributes["http.response.status_code"]).toBe(500);
    }
    expect(root.attributes["delivery.answer"]).toBe("launch_error");
  });

  it("a body whose signature does not prove: the verification's span is failed with the refusal's code", async () => {
    const { res, spans, text } = await deliverTraced({ "x-hub-signature-256": `sha256=${"0".repeat(64)}` });
    expect(res.statusCode).toBe(401);
    const verify = one(spans, "delivery.verify");
    expect(verify.status).toMatchObject({ code: ERROR, message: "bad_signature" });
    expect(verify.attributes["delivery.proven"]).toBe(false);
    expect(text).not.toContain("Sprockets");
  });
  it("a delivery with a W3C traceparent continues the caller's trace: its span is the caller's span's child", async () => {
    const { res, root, spans } = await deliverTraced({ traceparent: TRACEPARENT, tracestate: "vendor=opaque" });
    expect(res.statusCode).toBe(200);
    expect([root.traceId, root.parentSpanId, root.kind]).toEqual([CALLER_TRACE, CALLER_SPAN, SERVER]);
    // Its steps are in the same trace, under it.
    expect(one(spans, "delivery.decide").parentSpanId).toBe(root.spanId);
    // A malformed traceparent is no trace context: the delivery starts a trace of its own.
    await startTracing(PRODUCT);
    const bad = await deliverTraced({ traceparent: `00-${"0".repeat(32)}-${CALLER_SPAN}-01` });
    expect(bad.root.traceId).not.toBe("0".repeat(32));
    expect(bad.root.parentSpanId ?? "").toBe("");
  });

  it("an API request on a socket is a server span named by its route that continues the caller's trace; a ping's delivery over the network continues it", async () => {
    // A service of its own, listening at its SERVICE_BASE_URL: a ping is sent there over the network.
    const t = await startListeningTestApp(kind);
    try {
      const s = await seedTenancy(t);
      const generic = (await s.teamAdmin.api.post(`/api/teams/${s.team.id}/webhooks`, { provider: "generic", bot_ids: ["review-pr"] })).body;
      const base = `${t.url}/api/teams/${s.team.id}/webhooks/${generic.config.id}`;
      const res = await fetch(`${base}/ping`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.adminToken}`, "content-type": "application/json", traceparent: TRACEPARENT, "x-request-id": "trace-ping" },
        body: JSON.stringify({ token: generic.token }),
      });
      expect([res.status, ((await res.json()) as { reached: boolean }).reached]).toEqual([200, true]);
      // Untraced: no traceparent, a root span; health checks and metrics make none.
      expect((await fetch(base, { headers: { authorization: `Bearer ${t.adminToken}` } })).status).toBe(200);
      expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
      await stopTracing();
      const api = collector.spans.find((x) => x.attributes["request.id"] === "trace-ping")!;
      expect(api).toMatchObject({
        name: "POST /api/teams/:id/webhooks/:webhook_id/ping",
        kind: SERVER,
        traceId: CALLER_TRACE,
        parentSpanId: CALLER_SPAN,
        attributes: { "http.request.method": "POST", "http.route": "/api/teams/:id/webhooks/:webhook_id/ping", "http.response.status_code": 200 },
      });
      // The ping's delivery came back in over the network with the request's traceparent: the request's child.
      const delivery = collector.spans.find((x) => x.name === "delivery" && x.attributes["webhook.id"] === generic.config.id)!;
      expect(delivery).toMatchObject({ traceId: CALLER_TRACE, parentSpanId: api.spanId });
      const get = collector.spans.find((x) => x.name === "GET /api/teams/:id/webhooks/:webhook_id")!;
      expect([get.kind, get.parentSpanId ?? ""]).toEqual([SERVER, ""]);
      expect(collector.spans.filter((x) => x.name.includes("healthz"))).toEqual([]);
      const text = collector.bodies.join("\n");
      for (const kept of [t.adminToken, generic.token, `/api/teams/${s.team.id}`]) expect(text, kept).not.toContain(kept);
    } finally {
      await t.close();
    }
  });

  it("OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf sends the same spans as protobuf, and nothing secret in them", async () => {
    await stopTracing();
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = "http/protobuf";
    expect(await startTracing(PRODUCT)).toEqual({ on: true, protocol: "http/protobuf", warnings: [] });
    const { res, root, spans, requestId } = await deliverTraced({ traceparent: TRACEPARENT });
    expect(res.statusCode).toBe(200);
    expect(collector.contentTypes.every((t) => t === "application/x-protobuf")).toBe(true);
    expect(root).toMatchObject({ kind: SERVER, traceId: CALLER_TRACE, parentSpanId: CALLER_SPAN });
    expect(root.attributes).toMatchObject({ "request.id": requestId, "delivery.provider": "forge_b", "http.response.status_code": 200 });
    expect(one(spans, "delivery.verify").attributes).toMatchObject({ "delivery.proven": true });
    expect(collector.resources[0]).toMatchObject({ "service.name": PRODUCT.name });
    const raw = collector.bodies.join("\n");
    for (const kept of [hook.token, "tok-forge_b", "Sprockets are slow", WORLD.repo, WORLD.maria.login]) expect(raw, kept).not.toContain(kept);
  });
});
