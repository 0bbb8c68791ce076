import { Type } from "typebox";
import type { App, Services } from "../services.js";
import { sendDenial } from "../send-denial.js";
import { MAX_VAR_VALUE_BYTES, MAX_VARS, VAR_KEY_RE } from "../../webhooks/field-parsers.js";
import { Id, TeamParams } from "./schemas.js";

/** Run variables: the shape here; the limits' one rule (4 KiB in UTF-8 bytes) is RunsApi's. */
const Vars = Type.Record(Type.String({ pattern: VAR_KEY_RE.source }), Type.String({ maxLength: MAX_VAR_VALUE_BYTES }), {
  maxProperties: MAX_VARS,
  additionalProperties: false,
});
const Text = Type.String({ minLength: 1, maxLength: 2048 });
const LaunchBody = Type.Object(
  {
    team_id: Id,
    bot: Type.String({ minLength: 1, maxLength: 64 }),
    vars: Type.Optional(Vars),
    repo_url: Type.Optional(Text),
    repo_ref: Type.Optional(Text),
    project_path: Type.Optional(Text),
    connection_id: Type.Optional(Id),
  },
  { additionalProperties: false },
);
const RunParams = Type.Object({ id: Id });
const RunStatus = Type.Union(["queued", "running", "succeeded", "failed", "failed_resumable", "cancelled"].map((s) => Type.Literal(s as "queued")));
const ListQuery = Type.Object(
  { status: Type.Optional(RunStatus), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) },
  { additionalProperties: false },
);

const AttemptParams = Type.Object({ id: Id, n: Type.Integer({ minimum: 1, maximum: 1_000_000 }) });
const LogQuery = Type.Object({ offset: Type.Optional(Type.Integer({ minimum: 0 })) }, { additionalProperties: false });

const AnswerBody = Type.Object({ answer: Type.String({ minLength: 1, maxLength: 4000 }) }, { additionalProperties: false });

const DeadLetterQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) }, { additionalProperties: false });

export function registerRunRoutes(app: App, s: Services): void {
  const tags = ["runs"];
  app.post("/api/runs", { schema: { tags, body: LaunchBody } }, async (req, reply) => {
    const result = await s.runs.launch(req.principal, req.body);
    switch (result.kind) {
      case "launched":
        return reply.code(201).send(result.run);
      case "denied":
        return sendDenial(reply, result.denial);
      default: {
        const never: never = result;
        return never;
      }
    }
  });
  app.get("/api/runs/:id", { schema: { tags, params: RunParams } }, async (req) => s.runs.get(req.principal, req.params.id));
  app.get("/api/teams/:id/runs", { schema: { tags, params: TeamParams, querystring: ListQuery } }, async (req) => ({
    runs: await s.runs.list(req.principal, req.params.id, req.query),
  }));
  app.post("/api/runs/:id/resume", { schema: { tags, params: RunParams } }, async (req, reply) => {
    const result = await s.runs.resume(req.principal, req.params.id);
    return result.kind === "launched" ? reply.code(200).send(result.run) : sendDenial(reply, result.denial);
  });
  // Plain text from a byte offset; X-Log-Next-Offset says where to read on, X-Log-Complete whether the attempt ended and all was read.
  app.get("/api/runs/:id/attempts/:n/log", { schema: { tags, params: AttemptParams, querystring: LogQuery } }, async (req, reply) => {
    const slice = await s.runLogs.read(req.principal, req.params.id, req.params.n, req.query.offset ?? 0);
    return reply
      .header("content-type", "text/plain; charset=utf-8")
      .header("cache-control", "no-store")
      .header("x-log-next-offset", String(slice.nextOffset))
      .header("x-log-complete", String(slice.complete))
      .send(slice.text);
  });
  app.post("/api/runs/:id/answer", { schema: { tags, params: RunParams, body: AnswerBody } }, async (req, reply) => {
    const result = await s.runs.answer(req.principal, req.params.id, req.body.answer);
    return result.kind === "launched" ? reply.code(200).send(result.run) : sendDenial(reply, result.denial);
  });
  app.post("/api/runs/:id/cancel", { schema: { tags, params: RunParams } }, async (req) => s.runs.cancel(req.principal, req.params.id));
  app.get("/api/teams/:id/dead-letters", { schema: { tags, params: TeamParams, querystring: DeadLetterQuery } }, async (req) => ({
    runs: await s.runs.deadLetters(req.principal, req.params.id, req.query.limit),
  }));
  app.post("/api/runs/:id/republish", { schema: { tags, params: RunParams } }, async (req) => s.runs.republish(req.principal, req.params.id));
  app.post("/api/runs/:id/discard", { schema: { tags, params: RunParams } }, async (req) => s.runs.discard(req.principal, req.params.id));
  app.delete("/api/runs/:id", { schema: { tags, params: RunParams } }, async (req, reply) => {
    await s.runs.delete(req.principal, req.params.id);
    return reply.code(204).send();
  });
}
