import { Type } from "typebox";
import type { App, Services } from "../services.js";
import { Id, RotateBody, TeamParams } from "./schemas.js";

const WebhookParams = Type.Object({ id: Id, webhook_id: Id });
/** Fields are checked by the webhook capability, which names read-only and unknown fields precisely. */
const WebhookBody = Type.Object({}, { additionalProperties: true, description: "Fields of the webhook config table; create needs provider (or an alias)" });

/** The spec's webhook management table: members read, team admins write. */
export function registerWebhookRoutes(app: App, s: Services): void {
  const tags = ["webhooks"];
  app.get("/api/teams/:id/webhooks", { schema: { tags, params: TeamParams } }, async (req) => ({
    webhooks: await s.webhooks.list(req.principal, req.params.id),
  }));
  app.post("/api/teams/:id/webhooks", { schema: { tags, params: TeamParams, body: WebhookBody } }, async (req, reply) =>
    reply.code(201).send(await s.webhooks.create(req.principal, req.params.id, req.body)),
  );
  app.get("/api/teams/:id/webhooks/:webhook_id", { schema: { tags, params: WebhookParams } }, async (req) =>
    s.webhooks.get(req.principal, req.params.id, req.params.webhook_id),
  );
  app.patch("/api/teams/:id/webhooks/:webhook_id", { schema: { tags, params: WebhookParams, body: WebhookBody } }, async (req) =>
    s.webhooks.update(req.principal, req.params.id, req.params.webhook_id, req.body),
  );
  app.delete("/api/teams/:id/webhooks/:webhook_id", { schema: { tags, params: WebhookParams } }, async (req, reply) => {
    await s.webhooks.remove(req.principal, req.params.id, req.params.webhook_id);
    return reply.code(204).send();
  });
  app.post("/api/teams/:id/webhooks/:webhook_id/rotate", { schema: { tags, params: WebhookParams, body: RotateBody } }, async (req) =>
    s.webhooks.rotate(req.principal, req.params.id, req.params.webhook_id, req.body?.overlap_seconds),
  );
}
