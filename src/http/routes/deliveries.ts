import { Type } from "typebox";
import type { App, Services } from "../services.js";
import { deliveryAnswer } from "../delivery-answer.js";
import { Id } from "./schemas.js";

const WebhookParams = Type.Object({ id: Id, webhook_id: Id });
const DeliveryParams = Type.Object({ id: Id, webhook_id: Id, delivery_id: Id });
const DeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    after: Type.Optional(Type.String({ maxLength: 128, description: "a delivery id: the newer deliveries nearest to it" })),
    before: Type.Optional(Type.String({ maxLength: 128, description: "a delivery id: the deliveries older than it" })),
    status: Type.Optional(Type.String({ maxLength: 32 })),
    event: Type.Optional(Type.String({ maxLength: 64 })),
    since: Type.Optional(Type.String({ maxLength: 40, description: "ISO 8601 time or epoch ms" })),
  },
  { additionalProperties: false },
);

const RedeliverBody = Type.Union([
  Type.Object(
    { fresh_key: Type.Optional(Type.Boolean({ description: "launch under a fresh idempotency key instead of the event's own (default false)" })) },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

const PingBody = Type.Union([
  Type.Object(
    { token: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: "a token-mode webhook's token: the service keeps only its hash" })) },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

/** A webhook's delivery log: members read pages and single deliveries; team admins send one again, or a test delivery. */
export function registerDeliveryRoutes(app: App, s: Services): void {
  const tags = ["webhooks"];
  app.get("/api/teams/:id/webhooks/:webhook_id/deliveries", { schema: { tags, params: WebhookParams, querystring: DeliveriesQuery } }, async (req) =>
    s.deliveries.page(req.principal, req.params.id, req.params.webhook_id, req.query),
  );
  app.get("/api/teams/:id/webhooks/:webhook_id/deliveries/:delivery_id", { schema: { tags, params: DeliveryParams } }, async (req) =>
    s.deliveries.show(req.principal, req.params.id, req.params.webhook_id, req.params.delivery_id),
  );
  app.post("/api/teams/:id/webhooks/:webhook_id/ping", { schema: { tags, params: WebhookParams, body: PingBody } }, async (req) =>
    s.pings.ping(req.principal, req.params.id, req.params.webhook_id, { token: req.body?.token }),
  );
  app.post(
    "/api/teams/:id/webhooks/:webhook_id/deliveries/:delivery_id/redeliver",
    { schema: { tags, params: DeliveryParams, body: RedeliverBody } },
    async (req) => {
      const { outcome, ...done } = await s.redeliveries.redeliver(req.principal, req.params.id, req.params.webhook_id, req.params.delivery_id, {
        freshKey: req.body?.fresh_key === true,
      });
      const answer = deliveryAnswer(outcome);
      return { ...done, answer: { status: answer.status, body: answer.body } };
    },
  );
}
