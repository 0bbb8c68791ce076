import type { App, Services } from "../services.js";
import { sendError } from "../error-handler.js";

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

  app.get("/metrics", { config: { public: true }, schema: hidden }, async (_request, reply) => {
    reply.header("content-type", s.metrics.contentType);
    return s.metrics.text();
  });

  app.get("/api/openapi.json", { config: { public: true }, schema: hidden }, async () => app.swagger());
}
