import { setTimeout as sleep } from "node:timers/promises";
import { annotateSpan } from "../../core/tracing.js";
import { Type, type Static } from "typebox";
import { CLAIM_WAIT_MAX_SECONDS, ClaimBody, FinishBody, HeartbeatBody, type Outcome, OutputBody, RunnerTicket } from "./runner-bodies.js";
import { ref } from "./body-schema.js";
import type { PoolScope } from "../../store/runner-tokens.js";
import { limitsWire } from "../../runs/runner/bot-commands.js";
import type { AttemptTicket } from "../../runs/runner/runner-transport.js";
import { usageOf } from "../../runs/runner/usage-line.js";
import type { RunOutcome } from "../../runs/runs.js";
import type { App, Services } from "../services.js";
import { sendError } from "../error-handler.js";
import { Id, Name, OrgParams } from "./schemas.js";

/** How often a waiting claim looks at the queue again. */
const CLAIM_POLL_MS = 1000;

const RunnerCreate = Type.Object({ name: Name }, { additionalProperties: false });
const AdminRunnerParams = Type.Object({ id: Id });
const OrgRunnerParams = Type.Object({ id: Id, runner_id: Id });
const AttemptParams = Type.Object({ id: Id });

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
      schema: {
        ...runner,
        body: ClaimBody,
        response: { 200: ref(RunnerTicket), 204: Type.Null({ description: "No run for this runner's pool within the wait" }) },
      },
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
      schema: { ...runner, params: AttemptParams, body: HeartbeatBody },
    },
    async (req) => s.runnerDesk.heartbeat(req.runner, req.params.id, req.body.claim_token, req.body.missed_heartbeats ?? 0),
  );
  app.post("/api/runner/v1/runs/:id/output", { config, schema: { ...runner, params: AttemptParams, body: OutputBody } }, async (req) => {
    annotateSpan({ "run.id": req.params.id });
    return s.runnerDesk.output(req.runner, req.params.id, req.body.claim_token, req.body.lines);
  });
  app.post("/api/runner/v1/runs/:id/finish", { config, schema: { ...runner, params: AttemptParams, body: FinishBody } }, async (req) => {
    annotateSpan({ "run.id": req.params.id, "run.status": req.body.outcome.status });
    return s.runnerDesk.finish(req.runner, req.params.id, req.body.claim_token, { outcome: outcomeOf(req.body.outcome), usage: req.body.usage.map(usageOf) });
  });
}

/** The ticket as the claim answers it (RunnerTicket). */
export function ticketView(t: AttemptTicket) {
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
