import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Readable } from "node:stream";
import { Type } from "typebox";
import type { App, Services } from "../services.js";
import { clientAddress } from "../client-address.js";
import { sendAnswer } from "../error-handler.js";

export const DELIVERY_ROUTE = "/api/webhooks/:provider/:id";
const Params = Type.Object({ provider: Type.String({ maxLength: 32 }), id: Type.String({ maxLength: 128 }) });

/**
 * `POST /api/webhooks/{provider}/{id}`: public (the token or signature is the proof). The body
 * stream goes to the receiver unread, which reads it only once the webhook, its provider, its
 * `enabled` and (token mode) its token are checked. Plain requests are answered ahead of Fastify,
 * alike (`delivery-fast-path.ts`); this route answers the rest, and `inject`.
 */
export async function registerWebhookDeliveryRoutes(app: App, s: Services): Promise<void> {
  const address = clientAddress(s.config.trustProxy);
  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_req, payload, done) => done(null, payload));
    scope.post(DELIVERY_ROUTE, { config: { public: true }, schema: { tags: ["webhooks"], params: Params, security: [] } }, async (req, reply) => {
      const body = req.body instanceof Readable ? req.body : Readable.from([]);
      req.body = undefined;
      const answer = await s.receiveDelivery({
        provider: req.params.provider,
        webhookId: req.params.id,
        headers: req.headers,
        body,
        sourceIp: address(req.raw) ?? null,
        requestId: req.id,
      });
      // The caller went away mid-body: there is no one to answer.
      if (!answer) return reply.hijack();
      return sendAnswer(reply, answer);
    });
  });
}
