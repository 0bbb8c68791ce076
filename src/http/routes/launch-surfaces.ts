import { Type } from "typebox";
import { MAX_VAR_VALUE_BYTES, MAX_VARS, VAR_KEY_RE } from "../../webhooks/field-parsers.js";
import type { App, Services } from "../services.js";
import { sendDenial } from "../send-denial.js";
import { Id, Name, TeamParams } from "./schemas.js";

const Text = Type.String({ maxLength: 2048 });
/** A vars template: values may hold `{{payload.path}}`, filled at launch and checked then. */
const Vars = Type.Record(Type.String({ pattern: VAR_KEY_RE.source }), Type.String({ maxLength: MAX_VAR_VALUE_BYTES }), {
  maxProperties: MAX_VARS,
  additionalProperties: false,
});
const Target = {
  name: Type.Optional(Name),
  bot: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  vars: Type.Optional(Vars),
  repo_url: Type.Optional(Type.Union([Text, Type.Null()])),
  repo_ref: Type.Optional(Type.Union([Text, Type.Null()])),
  project_path: Type.Optional(Type.Union([Text, Type.Null()])),
  enabled: Type.Optional(Type.Boolean()),
};
const ScheduleBody = Type.Object(
  { ...Target, cron: Type.Optional(Type.String({ maxLength: 200 })), timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
  { additionalProperties: false },
);
const SubscriptionBody = Type.Object(
  { ...Target, event: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), filter: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
  { additionalProperties: false },
);
const NewSubscriptionBody = Type.Object({ ...SubscriptionBody.properties, team_id: Id }, { additionalProperties: false });
const EmitBody = Type.Object(
  {
    team_id: Id,
    event: Type.String({ minLength: 1, maxLength: 200 }),
    payload: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
const Column = Type.Union(["backlog", "ready", "running", "done", "blocked"].map((c) => Type.Literal(c as "ready")));
const CardBody = Type.Object(
  {
    title: Type.String({ maxLength: 1000 }),
    body: Type.Optional(Type.String({ maxLength: 65_536 })),
    labels: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 64 })),
    column: Type.Optional(Type.Union([Type.Literal("backlog"), Type.Literal("ready")])),
    bot: Type.String({ minLength: 1, maxLength: 64 }),
    vars: Type.Optional(Vars),
    repo_url: Type.Optional(Type.Union([Text, Type.Null()])),
    repo_ref: Type.Optional(Type.Union([Text, Type.Null()])),
    project_path: Type.Optional(Type.Union([Text, Type.Null()])),
  },
  { additionalProperties: false },
);
const CardParams = Type.Object({ id: Id, card_id: Id });
const CardQuery = Type.Object(
  { column: Type.Optional(Column), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) },
  { additionalProperties: false },
);
const MoveBody = Type.Object({ column: Column }, { additionalProperties: false });
const ScheduleParams = Type.Object({ id: Id, schedule_id: Id });
const TriggerParams = Type.Object({ id: Id });
const TriggerQuery = Type.Object({ team_id: Id }, { additionalProperties: false });

/** Schedules (a team's, as the spec names them), custom-event triggers (under /api/v1/) and the team's board. */
export function registerLaunchSurfaceRoutes(app: App, s: Services): void {
  const schedules = { tags: ["schedules"] };
  app.get("/api/teams/:id/schedules", { schema: { ...schedules, params: TeamParams } }, async (req) => ({
    schedules: await s.schedules.list(req.principal, req.params.id),
  }));
  app.post("/api/teams/:id/schedules", { schema: { ...schedules, params: TeamParams, body: ScheduleBody } }, async (req, reply) =>
    reply.code(201).send(await s.schedules.create(req.principal, req.params.id, req.body)),
  );
  app.get("/api/teams/:id/schedules/:schedule_id", { schema: { ...schedules, params: ScheduleParams } }, async (req) =>
    s.schedules.get(req.principal, req.params.id, req.params.schedule_id),
  );
  app.patch("/api/teams/:id/schedules/:schedule_id", { schema: { ...schedules, params: ScheduleParams, body: ScheduleBody } }, async (req) =>
    s.schedules.update(req.principal, req.params.id, req.params.schedule_id, req.body),
  );
  app.delete("/api/teams/:id/schedules/:schedule_id", { schema: { ...schedules, params: ScheduleParams } }, async (req, reply) => {
    await s.schedules.remove(req.principal, req.params.id, req.params.schedule_id);
    return reply.code(204).send();
  });

  const triggers = { tags: ["triggers"] };
  app.get("/api/v1/triggers", { schema: { ...triggers, querystring: TriggerQuery } }, async (req) => ({
    triggers: await s.triggers.list(req.principal, req.query.team_id),
  }));
  app.post("/api/v1/triggers", { schema: { ...triggers, body: NewSubscriptionBody } }, async (req, reply) => {
    const { team_id, ...input } = req.body;
    return reply.code(201).send(await s.triggers.create(req.principal, team_id, input));
  });
  app.get("/api/v1/triggers/:id", { schema: { ...triggers, params: TriggerParams } }, async (req) => s.triggers.get(req.principal, req.params.id));
  app.patch("/api/v1/triggers/:id", { schema: { ...triggers, params: TriggerParams, body: SubscriptionBody } }, async (req) =>
    s.triggers.update(req.principal, req.params.id, req.body),
  );
  app.delete("/api/v1/triggers/:id", { schema: { ...triggers, params: TriggerParams } }, async (req, reply) => {
    await s.triggers.remove(req.principal, req.params.id);
    return reply.code(204).send();
  });
  app.post("/api/v1/triggers/emit", { schema: { ...triggers, body: EmitBody } }, async (req, reply) => {
    const result = await s.triggers.emit(req.principal, req.body);
    if (result.kind === "denied") return sendDenial(reply, result.denial);
    return reply.code(200).send({ event: result.event, launches: result.launches });
  });

  const board = { tags: ["board"] };
  app.get("/api/teams/:id/board/cards", { schema: { ...board, params: TeamParams, querystring: CardQuery } }, async (req) => ({
    cards: await s.board.list(req.principal, req.params.id, req.query.column, req.query.limit),
  }));
  app.post("/api/teams/:id/board/cards", { schema: { ...board, params: TeamParams, body: CardBody } }, async (req, reply) =>
    reply.code(201).send(await s.board.create(req.principal, req.params.id, req.body)),
  );
  app.get("/api/teams/:id/board/cards/:card_id", { schema: { ...board, params: CardParams } }, async (req) =>
    s.board.get(req.principal, req.params.id, req.params.card_id),
  );
  app.post("/api/teams/:id/board/cards/:card_id/move", { schema: { ...board, params: CardParams, body: MoveBody } }, async (req) =>
    s.board.move(req.principal, req.params.id, req.params.card_id, req.body.column),
  );
  app.post("/api/teams/:id/board/cards/:card_id/retry", { schema: { ...board, params: CardParams } }, async (req) =>
    s.board.retry(req.principal, req.params.id, req.params.card_id),
  );
  app.post("/api/teams/:id/board/cards/:card_id/approve", { schema: { ...board, params: CardParams } }, async (req) =>
    s.board.approve(req.principal, req.params.id, req.params.card_id),
  );
}
