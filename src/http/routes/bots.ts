import { Type } from "typebox";
import type { App, Services } from "../services.js";
import { Id, Name, OrgParams } from "./schemas.js";

const BotCreate = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 63 }),
    name: Name,
    description: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
const BotParams = Type.Object({ id: Id, bot_id: Id });

/** The org's bot catalog: built-ins plus registered bots; org admins register, org members list. */
export function registerBotRoutes(app: App, s: Services): void {
  const tags = ["bots"];
  app.post("/api/orgs/:id/bots", { schema: { tags, params: OrgParams, body: BotCreate } }, async (req, reply) =>
    reply.code(201).send(await s.bots.register(req.principal, req.params.id, req.body)),
  );
  app.get("/api/orgs/:id/bots", { schema: { tags, params: OrgParams } }, async (req) => ({
    bots: await s.bots.list(req.principal, req.params.id),
  }));
  app.delete("/api/orgs/:id/bots/:bot_id", { schema: { tags, params: BotParams } }, async (req, reply) => {
    await s.bots.remove(req.principal, req.params.id, req.params.bot_id);
    return reply.code(204).send();
  });
}
