import { Type } from "typebox";
import type { App, Services } from "../services.js";
import { Count, Id, Name, OrgParams, Role, Status, Usd } from "./schemas.js";

const Audience = Type.Union([Type.Literal("all"), Type.Literal("none"), Type.Array(Id, { maxItems: 1000 })]);

const OrgFields = {
  status: Type.Optional(Status),
  monthly_cost_cap_usd: Type.Optional(Usd),
  monthly_run_quota: Type.Optional(Count),
  memory_quota_bytes: Type.Optional(Count),
  monthly_webhook_calls: Type.Optional(Count),
  credential_audience: Type.Optional(Audience),
  retry_usage_window: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  retry_max_attempts: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()])),
  retry_max_wait: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 7 * 86_400 }), Type.Null()])),
  retry_jitter: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()])),
  runner_pool: Type.Optional(Type.Union([Type.Literal("platform"), Type.Literal("org")])),
};
const OrgCreate = Type.Object({ name: Name, ...OrgFields }, { additionalProperties: false });
const OrgPatch = Type.Object({ name: Type.Optional(Name), ...OrgFields }, { additionalProperties: false, minProperties: 1 });
const MemberParams = Type.Object({ id: Id, user_id: Id });
const MemberBody = Type.Object({ role: Role }, { additionalProperties: false });
const TeamCreate = Type.Object(
  {
    name: Name,
    status: Type.Optional(Status),
    max_concurrent_runs: Type.Optional(Count),
    launch_rate_per_min: Type.Optional(Count),
  },
  { additionalProperties: false },
);

export function registerOrgRoutes(app: App, s: Services): void {
  const tags = ["orgs"];
  app.post("/api/admin/orgs", { schema: { tags, body: OrgCreate } }, async (req, reply) =>
    reply.code(201).send(await s.tenancy.createOrg(req.principal, req.body)),
  );
  app.get("/api/admin/orgs", { schema: { tags } }, async (req) => ({ orgs: await s.tenancy.listOrgs(req.principal) }));
  app.get("/api/admin/orgs/:id", { schema: { tags, params: OrgParams } }, async (req) => s.tenancy.getOrg(req.principal, req.params.id));
  app.patch("/api/admin/orgs/:id", { schema: { tags, params: OrgParams, body: OrgPatch } }, async (req) =>
    s.tenancy.updateOrg(req.principal, req.params.id, req.body),
  );

  app.post("/api/orgs/:id/teams", { schema: { tags, params: OrgParams, body: TeamCreate } }, async (req, reply) =>
    reply.code(201).send(await s.tenancy.createTeam(req.principal, req.params.id, req.body)),
  );
  app.get("/api/orgs/:id/teams", { schema: { tags, params: OrgParams } }, async (req) => ({
    teams: await s.tenancy.listTeams(req.principal, req.params.id),
  }));

  app.put("/api/orgs/:id/members/:user_id", { schema: { tags, params: MemberParams, body: MemberBody } }, async (req) =>
    s.tenancy.putOrgMember(req.principal, req.params.id, req.params.user_id, req.body.role),
  );
  app.delete("/api/orgs/:id/members/:user_id", { schema: { tags, params: MemberParams } }, async (req, reply) => {
    await s.tenancy.deleteOrgMember(req.principal, req.params.id, req.params.user_id);
    return reply.code(204).send();
  });
}
