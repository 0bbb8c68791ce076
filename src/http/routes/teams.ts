import { Type } from "typebox";
import type { App, Services } from "../services.js";
import { Count, Id, Name, Role, Status, TeamParams } from "./schemas.js";

const TeamPatch = Type.Object(
  {
    name: Type.Optional(Name),
    status: Type.Optional(Status),
    max_concurrent_runs: Type.Optional(Count),
    launch_rate_per_min: Type.Optional(Count),
    board_mode: Type.Optional(Type.Union([Type.Literal("off"), Type.Literal("track"), Type.Literal("coordinate")])),
  },
  { additionalProperties: false, minProperties: 1 },
);
const MemberParams = Type.Object({ id: Id, user_id: Id });
const MemberBody = Type.Object({ role: Role }, { additionalProperties: false });

export function registerTeamRoutes(app: App, s: Services): void {
  const tags = ["teams"];
  app.get("/api/teams/:id", { schema: { tags, params: TeamParams } }, async (req) => s.tenancy.getTeam(req.principal, req.params.id));
  app.patch("/api/teams/:id", { schema: { tags, params: TeamParams, body: TeamPatch } }, async (req) =>
    s.tenancy.updateTeam(req.principal, req.params.id, req.body),
  );
  app.put("/api/teams/:id/members/:user_id", { schema: { tags, params: MemberParams, body: MemberBody } }, async (req) =>
    s.tenancy.putTeamMember(req.principal, req.params.id, req.params.user_id, req.body.role),
  );
  app.delete("/api/teams/:id/members/:user_id", { schema: { tags, params: MemberParams } }, async (req, reply) => {
    await s.tenancy.deleteTeamMember(req.principal, req.params.id, req.params.user_id);
    return reply.code(204).send();
  });
}
