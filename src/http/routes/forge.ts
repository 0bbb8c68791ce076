import { Type } from "typebox";
import type { App, Services } from "../services.js";
import { Id, RotateBody, TeamParams } from "./schemas.js";

const Token = Type.String({ minLength: 1, maxLength: 16_384 });
const Url = Type.String({ maxLength: 2048 });
const ConnectionCreate = Type.Object(
  {
    provider: Type.String({ minLength: 1, maxLength: 32 }),
    base_url: Type.Optional(Type.Union([Url, Type.Null()])),
    token: Type.Optional(Token),
    app_id: Type.Optional(Type.Integer({ minimum: 1 })),
    private_key: Type.Optional(Type.String({ minLength: 1, maxLength: 16_384 })),
    installation_id: Type.Optional(Type.Integer({ minimum: 1 })),
    webhook_base_url: Type.Optional(Url),
  },
  { additionalProperties: false },
);
const ConnectionPatch = Type.Object({ token: Type.Optional(Token), webhook_base_url: Type.Optional(Url) }, { additionalProperties: false });
const ConnectionParams = Type.Object({ id: Id, connection_id: Id });
const Labels = Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 });
/** The spec's repo-bots table; the webhook fields are checked again by the webhook capability. */
const RepoBotBody = Type.Object(
  {
    connection_id: Id,
    repo: Type.String({ minLength: 1, maxLength: 512 }),
    bot_ids: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 })),
    launch_vars: Type.Optional(Type.Record(Type.String(), Type.String())),
    overlap: Type.Optional(Type.String({ maxLength: 16 })),
    auto_fix_on_gate_failure: Type.Optional(Type.Boolean()),
    review_after_gate: Type.Optional(Type.Boolean()),
    hold_labels: Type.Optional(Labels),
    label_allowlist: Type.Optional(Labels),
    gate_context: Type.Optional(Type.String({ maxLength: 200 })),
    webhook_base_url: Type.Optional(Url),
    security_read_enabled: Type.Optional(Type.Boolean()),
    report_status: Type.Optional(Type.Boolean({ description: "Show its runs on the forge (docs/forge-reporting.md); default on" })),
  },
  { additionalProperties: false },
);
const RepoBotParams = Type.Object({ id: Id, repo_bot_id: Id });
const ReposQuery = Type.Object({ connection_id: Type.Optional(Id) }, { additionalProperties: false });

/** Forge connections (the credential goes in, never out) and repository provisioning. */
export function registerForgeRoutes(app: App, s: Services): void {
  const tags = ["forge"];
  app.post("/api/teams/:id/forge/connections", { schema: { tags, params: TeamParams, body: ConnectionCreate } }, async (req, reply) =>
    reply.code(201).send(await s.connections.create(req.principal, req.params.id, req.body)),
  );
  app.get("/api/teams/:id/forge/connections", { schema: { tags, params: TeamParams } }, async (req) => ({
    connections: await s.connections.list(req.principal, req.params.id),
  }));
  app.get("/api/teams/:id/forge/connections/:connection_id", { schema: { tags, params: ConnectionParams } }, async (req) =>
    s.connections.get(req.principal, req.params.id, req.params.connection_id),
  );
  app.patch("/api/teams/:id/forge/connections/:connection_id", { schema: { tags, params: ConnectionParams, body: ConnectionPatch } }, async (req) =>
    s.connections.update(req.principal, req.params.id, req.params.connection_id, req.body),
  );
  app.delete("/api/teams/:id/forge/connections/:connection_id", { schema: { tags, params: ConnectionParams } }, async (req, reply) => {
    await s.connections.remove(req.principal, req.params.id, req.params.connection_id);
    return reply.code(204).send();
  });

  app.post("/api/teams/:id/forge/repo-bots", { schema: { tags, params: TeamParams, body: RepoBotBody } }, async (req) =>
    s.provisioning.provision(req.principal, req.params.id, req.body),
  );
  app.get("/api/teams/:id/forge/repo-bots", { schema: { tags, params: TeamParams } }, async (req) => ({
    repo_bots: await s.repoBots.list(req.principal, req.params.id),
  }));
  app.delete("/api/teams/:id/forge/repo-bots/:repo_bot_id", { schema: { tags, params: RepoBotParams } }, async (req, reply) => {
    await s.repoBots.deprovision(req.principal, req.params.id, req.params.repo_bot_id);
    return reply.code(204).send();
  });
  app.get("/api/teams/:id/forge/repo-bots/:repo_bot_id/health", { schema: { tags, params: RepoBotParams } }, async (req) =>
    s.repoBotHealth.check(req.principal, req.params.id, req.params.repo_bot_id),
  );
  app.post("/api/teams/:id/forge/repo-bots/:repo_bot_id/rotate", { schema: { tags, params: RepoBotParams, body: RotateBody } }, async (req) =>
    s.provisioning.rotate(req.principal, req.params.id, req.params.repo_bot_id, req.body?.overlap_seconds),
  );
  app.post("/api/teams/:id/forge/repo-bots/:repo_bot_id/repair", { schema: { tags, params: RepoBotParams } }, async (req) =>
    s.repoBotHealth.repair(req.principal, req.params.id, req.params.repo_bot_id),
  );
  app.get("/api/teams/:id/forge/repos", { schema: { tags, params: TeamParams, querystring: ReposQuery } }, async (req) => ({
    repos: await s.repoBots.repos(req.principal, req.params.id, req.query.connection_id),
  }));
}
