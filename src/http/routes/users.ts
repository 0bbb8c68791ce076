import { Type } from "typebox";
import type { App, Services } from "../services.js";
import { Id, Name } from "./schemas.js";

const UserCreate = Type.Object(
  { login: Type.String({ minLength: 1, maxLength: 63 }), name: Type.Optional(Name), super_admin: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
const TokenCreate = Type.Object({ name: Name, expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })) }, { additionalProperties: false });
const UserParams = Type.Object({ id: Id });
const UserPatch = Type.Object({ active: Type.Boolean() }, { additionalProperties: false });
const TokenParams = Type.Object({ id: Id });

export function registerUserRoutes(app: App, s: Services): void {
  const tags = ["users"];
  app.post("/api/admin/users", { schema: { tags, body: UserCreate } }, async (req, reply) =>
    reply.code(201).send(await s.tenancy.createUser(req.principal, req.body)),
  );
  app.patch("/api/admin/users/:id", { schema: { tags, params: UserParams, body: UserPatch } }, async (req) =>
    s.tenancy.setUserActive(req.principal, req.params.id, req.body.active),
  );
  app.get("/api/users/me", { config: { duringPasswordChange: true }, schema: { tags } }, async (req) => s.tenancy.me(req.principal));

  app.post("/api/users/me/tokens", { schema: { tags, body: TokenCreate } }, async (req, reply) =>
    reply.code(201).send(await s.tokens.create(req.principal, req.body)),
  );
  app.get("/api/users/me/tokens", { schema: { tags } }, async (req) => ({ tokens: await s.tokens.list(req.principal) }));
  app.delete("/api/users/me/tokens/:id", { schema: { tags, params: TokenParams } }, async (req, reply) => {
    await s.tokens.revoke(req.principal, req.params.id);
    return reply.code(204).send();
  });
  app.post("/api/admin/users/:id/tokens", { schema: { tags, params: UserParams, body: TokenCreate } }, async (req, reply) =>
    reply.code(201).send(await s.tokens.createFor(req.principal, req.params.id, req.body)),
  );
}
