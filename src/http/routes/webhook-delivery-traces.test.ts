import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PRODUCT } from "../../core/product.js";
import { startTracing, stopTracing } from "../../core/tracing.js";
import { WORLD } from "../../test-support/fake-forges/world.js";
import { fakeOf, forgeHook, githubLikeIssueOpened, startForgeWorld, type ForgeWorld, type Hook } from "../../test-support/forge-deliveries.js";
import { storeKinds } from "../../test-support/harness.js";

/** A span as OTLP/HTTP JSON carries it, with its attributes flattened. */
interface Span {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
}
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

/** A stand-in OTLP/HTTP collector: keeps each POST /v1/traces body (JSON) as it came. */
class FakeCollector {
  readonly bodies: string[] = [];
  readonly resources: Record<string, unknown>[] = [];
  readonly spans: Span[] = [];
  private server!: Server;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        if (req.method !== "POST" || req.url !== "/v1/traces" || !String(req.headers["content-type"]).includes("json")) {
          res.writeHead(404).end();
          return;
        }
        this.bodies.push(text);
        this.take(JSON.parse(text), req.headers);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  readonly headers: Record<string, unknown>[] = [];

  private take(body: any, headers: Record<string, unknown>): void {
    this.headers.push(headers);
    for (const rs of body.resourceSpans ?? []) {
      this.resources.push(flatten(rs.resource?.attributes));
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) this.spans.push({ ...s, attributes: flatten(s.attributes), status: s.status ?? {} });
      }
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function flatten(attributes: Array<{ key: string; value: Record<string, unknown> }> = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of attributes)
    out[key] = value.stringValue ?? value.boolValue ?? (value.intValue === undefined ? value.doubleValue : Number(value.intValue));
  return out;
}

const OTEL_VARS = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_BSP_SCHEDULE_DELAY", "OTEL_SERVICE_NAME"];

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
    collector.spans.length = 0;
    collector.bodies.length = 0;
    expect(await startTracing(PRODUCT)).toEqual({ on: true, warnings: [] });
  });

  /** Delivers an issue opened by maria (no author_association: the forge is asked her role), traced; answers the spans of its trace. */
  const deliverTraced = async () => {
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
    const answer = JSON.parse(res.body) as { status: string; delivery_id: string };
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
    const body = JSON.stringify(githubLikeIssueOpened(WORLD.maria.login, "NONE"));
    const res = await w.t.app.inject({
      method: "POST",
      url: `/api/webhooks/forge_b/${hook.id}`,
      payload: body,
      headers: {
        "content-type": "application/json",
        "x-github-event": "issues",
        "x-hub-signature-256": `sha256=${"0".repeat(64)}`,
        "x-request-id": "trace-bad-sig",
      },
    });
    await stopTracing();
    expect(res.statusCode).toBe(401);
    const root = collector.spans.find((s) => s.attributes["request.id"] === "trace-bad-sig")!;
    const verify = collector.spans.find((s) => s.traceId === root.traceId && s.name === "delivery.verify")!;
    expect(verify.status).toMatchObject({ code: ERROR, message: "bad_signature" });
    expect(verify.attributes["delivery.proven"]).toBe(false);
    expect(collector.bodies.join("\n")).not.toContain("Sprockets");
  });
});
