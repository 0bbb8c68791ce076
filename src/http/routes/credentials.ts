import { Type } from "typebox";
import type { App, Services } from "../services.js";
import { Id, Name, OrgParams, TeamParams } from "./schemas.js";

const KeyCreate = Type.Object(
  {
    provider: Type.String({ minLength: 1, maxLength: 32 }),
    name: Name,
    secret: Type.String({ minLength: 1, maxLength: 16_384 }),
  },
  { additionalProperties: false },
);
const SecretCreate = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 64 }), value: Type.String({ minLength: 1, maxLength: 16_384 }) },
  { additionalProperties: false },
);
const KeyParams = Type.Object({ id: Id, key_id: Id });
const SecretParams = Type.Object({ id: Id, secret_id: Id });

/** Stored API keys (team and org-shared) and workflow secrets: metadata out, plaintext never. */
export function registerCredentialRoutes(app: App, s: Services): void {
  const tags = ["credentials"];
  app.post("/api/teams/:id/keys", { schema: { tags, params: TeamParams, body: KeyCreate } }, async (req, reply) =>
    reply.code(201).send(await s.credentials.createTeamKey(req.principal, req.params.id, req.body)),
  );
  app.get("/api/teams/:id/keys", { schema: { tags, params: TeamParams } }, async (req) => ({
    keys: await s.credentials.listTeamKeys(req.principal, req.params.id),
  }));
  app.delete("/api/teams/:id/keys/:key_id", { schema: { tags, params: KeyParams } }, async (req, reply) => {
    await s.credentials.deleteTeamKey(req.principal, req.params.id, req.params.key_id);
    return reply.code(204).send();
  });

  app.post("/api/teams/:id/secrets", { schema: { tags, params: TeamParams, body: SecretCreate } }, async (req, reply) =>
    reply.code(201).send(await s.credentials.createSecret(req.principal, req.params.id, req.body)),
  );
  app.get("/api/teams/:id/secrets", { schema: { tags, params: TeamParams } }, async (req) => ({
    secrets: await s.credentials.listSecrets(req.principal, req.params.id),
  }));
  app.delete("/api/teams/:id/secrets/:secret_id", { schema: { tags, params: SecretParams } }, async (req, reply) => {
    await s.credentials.deleteSecret(req.principal, req.params.id, req.params.secret_id);
    return reply.code(204).send();
  });

  app.post("/api/orgs/:id/keys", { schema: { tags, params: OrgParams, body: KeyCreate } }, async (req, reply) =>
    reply.code(201).send(await s.credentials.createOrgKey(req.principal, req.params.id, req.body)),
  );
  app.get("/api/orgs/:id/keys", { schema: { tags, params: OrgParams } }, async (req) => ({
    keys: await s.credentials.listOrgKeys(req.principal, req.params.id),
  }));
  app.delete("/api/orgs/:id/keys/:key_id", { schema: { tags, params: KeyParams } }, async (req, reply) => {
    await s.credentials.deleteOrgKey(req.principal, req.params.id, req.params.key_id);
    return reply.code(204).send();
  });
}
