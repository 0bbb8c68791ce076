import { Type } from "typebox";
import type { App, Services } from "../services.js";
import { OrgParams, TeamParams } from "./schemas.js";

// Month is validated by the capability so a bad one gets the spec's 400, named by field.
const Slug = Type.String({ minLength: 1, maxLength: 512 });
const MonthQuery = Type.Object({ month: Type.Optional(Type.String({ description: "YYYY-MM (UTC); default: this month" })) }, { additionalProperties: false });
const TeamQuery = Type.Object({ month: Type.Optional(Type.String()), repo: Type.Optional(Slug) }, { additionalProperties: false });
const AdminQuery = Type.Object(
  {
    month: Type.Optional(Type.String()),
    tier: Type.Optional(Type.String()),
    fingerprint: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    repo: Type.Optional(Slug),
  },
  { additionalProperties: false },
);

export function registerUsageRoutes(app: App, s: Services): void {
  const tags = ["usage"];
  app.get("/api/admin/orgs/:id/usage", { schema: { tags, params: OrgParams } }, async (req) => s.usage.orgUsage(req.principal, req.params.id, "admin"));
  app.get("/api/orgs/:id/usage", { schema: { tags, params: OrgParams } }, async (req) => s.usage.orgUsage(req.principal, req.params.id, "org"));
  app.get("/api/orgs/:id/usage/daily", { schema: { tags, params: OrgParams, querystring: MonthQuery } }, async (req) =>
    s.usage.orgDaily(req.principal, req.params.id, req.query.month),
  );
  app.get("/api/teams/:id/credentials/usage", { schema: { tags, params: TeamParams, querystring: TeamQuery } }, async (req) =>
    s.usage.teamCredentials(req.principal, req.params.id, req.query),
  );
  app.get("/api/admin/credentials/usage", { schema: { tags, querystring: AdminQuery } }, async (req) => s.usage.adminCredentials(req.principal, req.query));
}
