import { microToUsd } from "../core/money.js";
import type { AttemptCredentialRow } from "../store/attempt-credentials.js";
import type { RunRow, listAttempts, sumRunUsage } from "../store/runs.js";
import { parseVars } from "./runs.js";
import { iso } from "../core/iso.js";
import type { BotQuestion } from "./runner/bot-output.js";

/** API shape of a run: snake_case, ISO timestamps. */
export function runView(r: RunRow) {
  return {
    id: r.id,
    org_id: r.org_id,
    team_id: r.team_id,
    bot_id: r.bot_id,
    status: r.status,
    vars: parseVars(r.vars),
    repo_url: r.repo_url,
    repo_ref: r.repo_ref,
    project_path: r.project_path,
    connection_id: r.connection_id,
    subject_id: r.subject_id,
    parent_subject_id: r.parent_subject_id,
    webhook_id: r.webhook_id,
    delivery_id: r.delivery_id,
    source: r.source,
    actor: { user_id: r.actor_user_id, kind: r.actor_kind },
    attempt: r.attempt,
    failure_code: r.failure_code,
    failure_detail: r.failure_detail,
    retry_at: iso(r.retry_at),
    auto_retries: r.auto_retries,
    dead_lettered_at: iso(r.dead_lettered_at),
    dead_letter_reason: r.dead_letter_reason,
    cancel_requested: r.cancel_requested === 1,
    summary: r.summary,
    /** What the bot last asked; the run waits for an answer while `waiting_for_answer`. */
    question: questionOf(r) ?? null,
    answer: r.answer,
    waiting_for_answer: r.status === "failed_resumable" && r.failure_code === "QUESTION" && r.question !== null,
    created_at: iso(r.created_at),
    queued_at: iso(r.queued_at),
    started_at: iso(r.started_at),
    finished_at: iso(r.finished_at),
    updated_at: iso(r.updated_at),
  };
}

/** The question the run's bot last asked, if any. */
export function questionOf(r: Pick<RunRow, "question">): BotQuestion | undefined {
  if (!r.question) return undefined;
  try {
    const q = JSON.parse(r.question) as BotQuestion;
    return typeof q?.text === "string" ? q : undefined;
  } catch {
    return undefined;
  }
}

export function runDetailView(
  r: RunRow,
  attempts: Awaited<ReturnType<typeof listAttempts>>,
  usage: Awaited<ReturnType<typeof sumRunUsage>>,
  credentials: AttemptCredentialRow[],
) {
  return {
    ...runView(r),
    attempts: attempts.map((a) => ({
      number: a.number,
      status: a.status,
      failure_code: a.failure_code,
      started_at: iso(a.started_at),
      finished_at: iso(a.finished_at),
      credentials: handedView(credentials.filter((c) => c.attempt === a.number)),
    })),
    usage: {
      cost_usd: microToUsd(usage.costMicro),
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      aggregate_tokens: usage.aggregateTokens,
      reports: usage.reports,
    },
  };
}

/** Which keys and secrets an attempt was handed: never a value. */
function handedView(rows: AttemptCredentialRow[]) {
  return {
    keys: rows
      .filter((c) => c.kind === "key")
      .map((c) => ({ provider: c.name, id: c.credential_id, name: c.credential_name, last4: c.last4, tier: c.tier, source: c.source })),
    secrets: rows.filter((c) => c.kind === "secret").map((c) => ({ name: c.name, id: c.credential_id, secret_name: c.credential_name })),
  };
}
