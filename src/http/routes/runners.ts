import { setTimeout as sleep } from "node:timers/promises";
import { annotateSpan } from "../../core/tracing.js";
import { Type, type Static } from "typebox";
import type { PoolScope } from "../../store/runner-tokens.js";
import { limitsWire } from "../../runs/runner/bot-commands.js";
import type { AttemptTicket } from "../../runs/runner/runner-transport.js";
import { usageOf } from "../../runs/runner/usage-line.js";
import type { RunOutcome } from "../../runs/runs.js";
import type { App, Services } from "../services.js";
import { sendError } from "../error-handler.js";
import { Id, Name, OrgParams } from "./schemas.js";

/** The longest a claim waits for a run before it answers 204 (under common proxies' 30 s idle limit). */
export const CLAIM_WAIT_MAX_SECONDS = 25;
/** How often a waiting claim looks at the queue again. */
const CLAIM_POLL_MS = 1000;

const RunnerCreate = Type.Object({ name: Name }, { additionalProperties: false });
const AdminRunnerParams = Type.Object({ id: Id });
const OrgRunnerParams = Type.Object({ id: Id, runner_id: Id });
const Strings = Type.Record(Type.String(), Type.String());

const ClaimBody = Type.Union([
  Type.Object(
    {
      wait_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: CLAIM_WAIT_MAX_SECONDS, description: "How long to wait for a run; default 25" })),
      host: Type.Optional(Type.String({ maxLength: 200, description: "The runner's host name, shown in the runs it claims" })),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
]);
const Ticket = Type.Object(
  {
    run_id: Type.String(),
    attempt: Type.Integer(),
    claim_token: Type.String({ description: "Proves the claim on every later call for this attempt" }),
    lease_seconds: Type.Number({ description: "The claim lapses this long after the last heartbeat (RUNNER_LOST)" }),
    bot: Type.Object({
      id: Type.String(),
      command: Type.Array(Type.String(), { description: "argv, resolved in the runner's bots folder; a first word `node` is the runner's Node" }),
      timeout_seconds: Type.Number(),
      env: Strings,
      limits: Type.Optional(
        Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
          description:
            "The resource limits the bots file sets for this bot (memory_mib, processes, file_size_mib, open_files, cpu_seconds; 0: none), over the runner's own SERVICE_RUNNER_LIMIT_* defaults",
        }),
      ),
    }),
    vars: Strings,
    repo_url: Type.Union([Type.String(), Type.Null()]),
    repo_ref: Type.Union([Type.String(), Type.Null()]),
    project_path: Type.Union([Type.String(), Type.Null()]),
    answer: Type.Union([Type.String(), Type.Null()], { description: "A person's answer to the question the previous attempt asked (BOT_ANSWER and stdin)" }),
    credentials: Type.Record(Type.String(), Type.String(), { description: "This attempt's keys and secrets, as the bot's environment variables" }),
  },
  { description: "One attempt to execute, with exactly the credentials it was handed" },
);
const AttemptParams = Type.Object({ id: Id });
const ClaimToken = Type.String({ minLength: 1, maxLength: 64 });
const HeartbeatBody = Type.Object(
  {
    claim_token: ClaimToken,
    missed_heartbeats: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 10_000, description: "Heartbeats since the last one that never reached the service" }),
    ),
  },
  { additionalProperties: false },
);
const OutputBody = Type.Object(
  {
    claim_token: ClaimToken,
    lines: Type.Array(
      Type.Object(
        { stream: Type.Union([Type.Literal("stdout"), Type.Literal("stderr")]), text: Type.String({ maxLength: 16 * 1024 + 1 }) },
        { additionalProperties: false },
      ),
      { maxItems: 1000 },
    ),
  },
  { additionalProperties: false },
);
const Outcome = Type.Object(
  {
    status: Type.Union([Type.Literal("succeeded"), Type.Literal("failed"), Type.Literal("failed_resumable"), Type.Literal("cancelled")]),
    failure_code: Type.Optional(Type.String({ pattern: "^[A-Z][A-Z0-9_]{0,63}$" })),
    detail: Type.Optional(Type.String({ maxLength: 2000 })),
    usage_window: Type.Optional(
      Type.Object({ provider: Type.String({ minLength: 1, maxLength: 512 }), reset_at: Type.String({ format: "date-time" }) }, { additionalProperties: false }),
    ),
    summary: Type.Optional(Type.String({ minLength: 1, maxLength: 280, description: 'The bot\'s last `{"summary": …}` line' })),
    question: Type.Optional(
      Type.Object(
        {
          text: Type.String({ minLength: 1, maxLength: 4000 }),
          choices: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 20 })),
        },
        { additionalProperties: false, description: "What the bot asked before it exited 75 (failure_code QUESTION): the run waits for an answer" },
      ),
    ),
  },
  { additionalProperties: false },
);
const FinishBody = Type.Object(
  {
    claim_token: ClaimToken,
    outcome: Outcome,
    usage: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      maxItems: 10_000,
      description: "The bot's usage lines as it printed them (each line's `usage` object)",
    }),
  },
  { additionalProperties: false },
);

/**
 * Runner tokens (super-admins for the platform's pool, org admins for their org's) and the runner
 * protocol under /api/runner/v1, which runners call with `Authorization: Bearer rnr_…`.
 */
export function registerRunnerRoutes(app: App, s: Services): void {
  const tags = ["runners"];
  const platform: PoolScope = { pool: "platform" };
  const org = (id: string): PoolScope => ({ pool: "org", orgId: id });

  app.post("/api/admin/runners", { schema: { tags, body: RunnerCreate } }, async (req, reply) =>
    reply.code(201).send(await s.runnerTokens.create(req.principal, platform, req.body)),
  );
  app.get("/api/admin/runners", { schema: { tags } }, async (req) => ({ runners: await s.runnerTokens.list(req.principal, platform) }));
  app.delete("/api/admin/runners/:id", { schema: { tags, params: AdminRunnerParams } }, async (req, reply) => {
    await s.runnerTokens.revoke(req.principal, platform, req.params.id);
    return reply.code(204).send();
  });
  app.post("/api/admin/runners/:id/rotate", { schema: { tags, params: AdminRunnerParams } }, async (req) =>
    s.runnerTokens.rotate(req.principal, platform, req.params.id),
  );
  app.post("/api/orgs/:id/runners", { schema: { tags, params: OrgParams, body: RunnerCreate } }, async (req, reply) =>
    reply.code(201).send(await s.runnerTokens.create(req.principal, org(req.params.id), req.body)),
  );
  app.get("/api/orgs/:id/runners", { schema: { tags, params: OrgParams } }, async (req) => ({
    runners: await s.runnerTokens.list(req.principal, org(req.params.id)),
  }));
  app.delete("/api/orgs/:id/runners/:runner_id", { schema: { tags, params: OrgRunnerParams } }, async (req, reply) => {
    await s.runnerTokens.revoke(req.principal, org(req.params.id), req.params.runner_id);
    return reply.code(204).send();
  });
  app.post("/api/orgs/:id/runners/:runner_id/rotate", { schema: { tags, params: OrgRunnerParams } }, async (req) =>
    s.runnerTokens.rotate(req.principal, org(req.params.id), req.params.runner_id),
  );

  // The protocol: a waiting claim ends at once when the server closes, so a stop is not held up by it.
  const closing = new AbortController();
  app.addHook("preClose", (done) => {
    closing.abort();
    done();
  });
  const runner = { tags: ["runner protocol"], security: [{ runner: [] }] };
  const config = { runner: true };

  app.post(
    "/api/runner/v1/claim",
    {
      config,
      schema: { ...runner, body: ClaimBody, response: { 200: Ticket, 204: Type.Null({ description: "No run for this runner's pool within the wait" }) } },
    },
    async (req, reply) => {
      const identity = claimantOf(req.runner, req.body?.host);
      // Wall time, not the service clock: this is how long the connection is held open, well
      // within the server's idle timeout so the wait is never cut off.
      const deadline = Date.now() + claimWaitMs(req.body?.wait_seconds, s.config.http.idleTimeoutMs);
      for (;;) {
        // A caller that went away must not be handed an attempt it will never run.
        if (req.raw.socket?.destroyed || closing.signal.aborted) return reply.code(204).send(null);
        // A token revoked while its runner waits is refused now, not at the runner's next call.
        if (!(await s.runnerTokens.live(req.runner))) return sendError(reply, "unauthenticated", "runner token is unknown, revoked or was rotated");
        const ticket = await s.runnerDesk.claim(identity);
        if (ticket) {
          annotateSpan({ "run.id": ticket.runId, "run.attempt": ticket.attempt });
          return ticketView(ticket);
        }
        const left = deadline - Date.now();
        if (left <= 0) return reply.code(204).send(null);
        await sleep(Math.min(CLAIM_POLL_MS, left), undefined, { signal: closing.signal }).catch(() => undefined);
      }
    },
  );
  app.post(
    "/api/runner/v1/runs/:id/heartbeat",
    {
      config,
      schema: {
        ...runner,
        params: AttemptParams,
        body: HeartbeatBody,
        response: { 200: Type.Object({ held: Type.Boolean(), cancel: Type.Boolean({ description: "Stop the bot: cancelled, or the claim was lost" }) }) },
      },
    },
    async (req) => s.runnerDesk.heartbeat(req.runner, req.params.id, req.body.claim_token, req.body.missed_heartbeats ?? 0),
  );
  app.post(
    "/api/runner/v1/runs/:id/output",
    { config, schema: { ...runner, params: AttemptParams, body: OutputBody, response: { 200: Type.Object({ held: Type.Boolean() }) } } },
    async (req) => {
      annotateSpan({ "run.id": req.params.id });
      return s.runnerDesk.output(req.runner, req.params.id, req.body.claim_token, req.body.lines);
    },
  );
  app.post(
    "/api/runner/v1/runs/:id/finish",
    { config, schema: { ...runner, params: AttemptParams, body: FinishBody, response: { 200: Type.Object({ finished: Type.Boolean() }) } } },
    async (req) => {
      annotateSpan({ "run.id": req.params.id, "run.status": req.body.outcome.status });
      return s.runnerDesk.finish(req.runner, req.params.id, req.body.claim_token, { outcome: outcomeOf(req.body.outcome), usage: req.body.usage.map(usageOf) });
    },
  );
}

function ticketView(t: AttemptTicket): Static<typeof Ticket> {
  return {
    run_id: t.runId,
    attempt: t.attempt,
    claim_token: t.claimToken,
    lease_seconds: t.leaseMs / 1000,
    bot: {
      id: t.bot.id,
      command: t.bot.command,
      timeout_seconds: t.bot.timeoutMs / 1000,
      env: t.bot.env,
      ...(t.bot.limits && { limits: limitsWire(t.bot.limits) }),
    },
    vars: t.input.vars,
    repo_url: t.input.repoUrl,
    repo_ref: t.input.repoRef,
    project_path: t.input.projectPath,
    answer: t.input.answer ?? null,
    credentials: t.credentials,
  };
}

function outcomeOf(o: Static<typeof Outcome>): RunOutcome {
  const summary = o.summary !== undefined && { summary: o.summary };
  if (o.status === "succeeded" || o.status === "cancelled") return { status: o.status, ...summary };
  const failureCode = o.failure_code ?? (o.status === "failed" ? "BOT_FAILED" : "RUNNER_STOPPED");
  return {
    status: o.status,
    failureCode,
    ...(o.detail !== undefined && { detail: o.detail }),
    ...(o.usage_window && { usageWindow: { provider: o.usage_window.provider, resetAt: Date.parse(o.usage_window.reset_at) } }),
    // A question is kept only with the QUESTION failure it makes: the run then waits for an answer.
    ...(o.question && o.status === "failed_resumable" && failureCode === "QUESTION" && { question: o.question }),
    ...summary,
  };
}

/** The runner as a claim names it: its token's name, and the host it runs on when it says. */
function claimantOf<R extends { name: string }>(runner: R, host: string | undefined): R {
  return host ? { ...runner, name: `${runner.name}/${host}` } : runner;
}

/** How long a claim waits for a run at most: what the runner asks, within the server's idle timeout. */
function claimWaitMs(waitSeconds: number | undefined, idleTimeoutMs: number): number {
  return Math.min((waitSeconds ?? CLAIM_WAIT_MAX_SECONDS) * 1000, idleTimeoutMs - 5000);
}
