// The runner protocol's bodies (`/api/runner/v1`): what a runner sends and what it is answered,
// as closed schemas. The answers are named (the document's components; body-checks.ts holds them
// equal to the desk's and the ticket view's types); the requests are checked as they come in.
import { Type, type TInteger, type TOptional } from "typebox";
import { LIMIT_FIELDS, MAX_LIMIT } from "../../config/resource-limits.js";
import { CREDENTIAL_TIERS } from "../../metering/metering.js";
import type { RunOutcome } from "../../runs/runs.js";
import { Enum, Nullable, Obj, Str, StrMap } from "./body-schema.js";

/** The longest a claim waits for a run before it answers 204 (under common proxies' 30 s idle limit). */
export const CLAIM_WAIT_MAX_SECONDS = 25;

/** A limit's name as the bots file and the ticket write it. */
type LimitName = (typeof LIMIT_FIELDS)[number]["file"];

/** A bot's resource limits as the bots file writes them: each one it sets, 0 for none. */
const limitProperties = Object.fromEntries(
  LIMIT_FIELDS.map((f) => [f.file, Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_LIMIT, description: `0: no limit (over ${f.env})` }))]),
) as Record<LimitName, TOptional<TInteger>>;

export const RunnerTicket = Obj(
  {
    run_id: Str,
    attempt: Type.Integer({ minimum: 1, description: "The attempt's number within its run" }),
    claim_token: Type.String({
      description: "A secret of this attempt only: it proves the claim on this attempt's heartbeat, output and finish calls, and on nothing else",
    }),
    lease_seconds: Type.Number({ description: "The claim lapses this long after the last heartbeat (RUNNER_LOST)" }),
    bot: Obj({
      id: Str,
      command: Type.Array(Str, { description: "argv, resolved in the runner's bots folder; a first word `node` is the runner's Node" }),
      timeout_seconds: Type.Number(),
      env: Type.Record(Type.String(), Type.String(), { description: "The bot's own environment from the bots file" }),
      limits: Type.Optional(
        Obj(limitProperties, {
          description:
            "Present when the bots file sets resource limits for this bot: each one it sets (0: none), over the runner's own SERVICE_RUNNER_LIMIT_* defaults; a runner leaves out a name it does not know",
        }),
      ),
    }),
    vars: StrMap,
    repo_url: Nullable(Str),
    repo_ref: Nullable(Str),
    project_path: Nullable(Str),
    answer: Nullable(Type.String({ description: "A person's answer to the question the previous attempt asked (BOT_ANSWER and stdin)" })),
    credentials: Type.Record(Type.String(), Type.String({ description: "A key or secret handed to this attempt only" }), {
      description:
        "This attempt's keys and secrets, as the bot's environment variables: resolved and recorded for this attempt alone, never another attempt's, a seal key or another team's",
    }),
  },
  { $id: "RunnerTicket", description: "One attempt to execute, with exactly the credentials it was handed" },
);

export const RunnerHeartbeat = Obj(
  {
    held: Type.Boolean({ description: "false: the claim was lost (the lease lapsed or the run was taken away)" }),
    cancel: Type.Boolean({ description: "Stop the bot: cancelled, or the claim was lost" }),
  },
  { $id: "RunnerHeartbeat", description: "A heartbeat's answer: the lease extended when held" },
);

export const RunnerOutputTaken = Obj(
  { held: Type.Boolean({ description: "false: the runner no longer holds the attempt, and the lines were not kept" }) },
  { $id: "RunnerOutputTaken", description: "An output call's answer" },
);

export const RunnerFinished = Obj(
  { finished: Type.Boolean({ description: "false: the claim was lost meanwhile (the usage counts all the same)" }) },
  { $id: "RunnerFinished", description: "A finish call's answer" },
);

// The requests.

export const ClaimBody = Type.Union([
  Obj({
    wait_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: CLAIM_WAIT_MAX_SECONDS, description: "How long to wait for a run; default 25" })),
    host: Type.Optional(Type.String({ maxLength: 200, description: "The runner's host name, shown in the runs it claims" })),
  }),
  Type.Null(),
]);

const ClaimToken = Type.String({ minLength: 1, maxLength: 64, description: "The ticket's claim_token" });

export const HeartbeatBody = Obj({
  claim_token: ClaimToken,
  missed_heartbeats: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, description: "Heartbeats since the last one that never reached the service" })),
});

export const OutputBody = Obj({
  claim_token: ClaimToken,
  lines: Type.Array(Obj({ stream: Enum(["stdout", "stderr"] as const), text: Type.String({ maxLength: 16 * 1024 + 1 }) }), { maxItems: 1000 }),
});

const OUTCOME_STATUSES = ["succeeded", "failed", "failed_resumable", "cancelled"] as const satisfies readonly RunOutcome["status"][];

export const Outcome = Obj({
  status: Enum(OUTCOME_STATUSES),
  failure_code: Type.Optional(
    Type.String({ pattern: "^[A-Z][A-Z0-9_]{0,63}$", description: "Failed only; default BOT_FAILED (failed) or RUNNER_STOPPED (failed_resumable)" }),
  ),
  detail: Type.Optional(Type.String({ maxLength: 2000 })),
  usage_window: Type.Optional(
    Obj(
      { provider: Type.String({ minLength: 1, maxLength: 512 }), reset_at: Type.String({ format: "date-time" }) },
      { description: "The provider's usage window the bot found exhausted (failure_code USAGE_WINDOW)" },
    ),
  ),
  summary: Type.Optional(Type.String({ minLength: 1, maxLength: 280, description: 'The bot\'s last `{"summary": …}` line' })),
  question: Type.Optional(
    Obj(
      {
        text: Type.String({ minLength: 1, maxLength: 4000 }),
        choices: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 20 })),
      },
      { description: "What the bot asked before it exited 75 (failure_code QUESTION): the run waits for an answer" },
    ),
  ),
});

/** A usage line's `usage` object as the bot printed it; a missing or negative amount counts 0 (unknown). */
const UsageLine = Obj(
  {
    id: Type.Optional(Type.String({ description: "The report's id: a repeated id counts once" })),
    cost_usd: Type.Optional(Type.Number()),
    input_tokens: Type.Optional(Type.Number()),
    output_tokens: Type.Optional(Type.Number()),
    aggregate_tokens: Type.Optional(Type.Number()),
    fingerprint: Type.Optional(Nullable(Str)),
    provider: Type.Optional(Nullable(Str)),
    tier: Type.Optional(Nullable(Enum(CREDENTIAL_TIERS))),
    repo: Type.Optional(Nullable(Str)),
    amount_type: Type.Optional(Enum(["metered", "estimate"] as const, "estimate: a subscription-equivalent price, not money spent")),
  },
  { description: "One usage line's `usage` object" },
);

export const FinishBody = Obj({
  claim_token: ClaimToken,
  outcome: Outcome,
  usage: Type.Array(UsageLine, { maxItems: 10_000, description: "The bot's usage lines as it printed them (each line's `usage` object)" }),
});

/** The answers, for the document's components. */
export const RUNNER_SCHEMAS = [RunnerTicket, RunnerHeartbeat, RunnerOutputTaken, RunnerFinished];
