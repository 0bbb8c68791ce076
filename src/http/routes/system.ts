import { createHash, timingSafeEqual } from "node:crypto";
import type { App, Services } from "../services.js";
import { sendError } from "../error-handler.js";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Whether `authorization` is `Bearer <token>`, compared in constant time. */
function bearerMatches(authorization: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  return m !== null && timingSafeEqual(digest(m[1]!), digest(token));
}

/** Health, readiness, metrics and the OpenAPI document: public by design. */
export function registerSystemRoutes(app: App, s: Services): void {
  const hidden = { hide: true };
  app.get("/healthz", { config: { public: true }, schema: hidden }, async () => ({ status: "ok" }));

  app.get("/readyz", { config: { public: true }, schema: hidden }, async (request, reply) => {
    try {
      await s.store.ping();
      return { status: "ready", store: s.store.kind };
    } catch (err) {
      request.log.warn({ err }, "readiness check: store did not answer");
      return sendError(reply, "store_unavailable", "the store is not answering");
    }
  });

  // Public unless SERVICE_METRICS_TOKEN is set: then a scraper presents it as a bearer token.
  const metricsToken = s.config.metricsToken;
  app.get("/metrics", { config: { public: true }, schema: hidden }, async (request, reply) => {
    if (metricsToken && !bearerMatches(request.headers.authorization, metricsToken)) {
      reply.header("www-authenticate", 'Bearer realm="metrics"');
      return sendError(reply, "unauthenticated", "/metrics needs the bearer token SERVICE_METRICS_TOKEN names");
    }
    reply.header("content-type", s.metrics.contentType);
    return s.metrics.text();
  });

  // People who open the service's address in a browser are led to the console.
  app.get("/", { config: { public: true }, schema: hidden }, async (_request, reply) => reply.redirect("/console", 302));

  app.get("/api/openapi.json", { config: { public: true }, schema: hidden }, async () => app.swagger());
}
