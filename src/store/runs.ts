import { sql, type Expression, type ExpressionBuilder, type Selectable, type SqlBool } from "kysely";
import type { Database } from "./schema/index.js";
import type { RunStatus, RunsTable } from "./schema/runs.js";
import { dialect } from "./dialect.js";
import type { Db } from "./db.js";
import { deleteRunCredentials } from "./attempt-credentials.js";
import type { PoolScope } from "./runner-tokens.js";
import { deleteRunLogs } from "./run-logs.js";
import { deleteQuestionPosts } from "./question-posts.js";

export type RunRow = Selectable<RunsTable>;

export { insertRun } from "./delivery-path/insert-run.js";

export function findRun(db: Db, id: string): Promise<RunRow | undefined> {
  return db.selectFrom("runs").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Newest first. */
export function listTeamRuns(db: Db, teamId: string, options: { status?: RunStatus; limit: number }): Promise<RunRow[]> {
  let q = db.selectFrom("runs").selectAll().where("team_id", "=", teamId);
  if (options.status) q = q.where("status", "=", options.status);
  return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(options.limit).execute();
}

/**
 * Marks the run's current attempt as counted, once: true only for the call that flipped it,
 * so the caller adds to the month's run count (addOrgRuns) exactly once per run attempt.
 */
export async function markAttemptMetered(db: Db, runId: string, month: string): Promise<boolean> {
  const r = await db
    .updateTable("runs")
    .set((eb) => ({ metered_attempt: eb.ref("attempt"), metered: 1, metered_month: month }))
    .where("id", "=", runId)
    .whereRef("metered_attempt", "<", "attempt")
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Hand-back: un-counts the run's launch once; returns the org and month to decrement, if it flipped. */
export async function releaseMetering(db: Db, runId: string): Promise<{ orgId: string; month: string } | undefined> {
  const row = await db
    .updateTable("runs")
    .set({ metered: 0 })
    .where("id", "=", runId)
    .where("metered", "=", 1)
    .returning(["org_id", "metered_month"])
    .executeTakeFirst();
  return row?.metered_month ? { orgId: row.org_id, month: row.metered_month } : undefined;
}

/** The columns of a run put back on the queue as its next attempt (a resume, a re-publication). */
export function nextAttemptColumns(eb: ExpressionBuilder<Database, "runs">, now: number) {
  return {
    status: "queued" as const,
    attempt: eb("attempt", "+", 1),
    failure_code: null,
    failure_detail: null,
    cancel_requested: 0,
    claim_token: null,
    claimed_by: null,
    lease_expires_at: null,
    queued_at: now,
    updated_at: now,
    finished_at: null,
    // Back on the queue it leaves the dead-letter queue; an armed retry is inert until the attempt ends, which clears it.
    dead_lettered_at: null,
    dead_letter_reason: null,
  };
}

/** Records a person's answer on a run its answer just put back on the queue (in the resume's transaction). */
export async function answerQuestion(db: Db, runId: string, answer: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable("runs")
    .set({ answer, updated_at: now })
    .where("id", "=", runId)
    .where("status", "=", "queued")
    .where("question", "is not", null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Puts a failed run back on the queue as its next attempt; false when it is not resumable. */
export async function requeueRun(db: Db, runId: string, now: number, actor: { userId: string | null; kind: string }): Promise<boolean> {
  const r = await db
    .updateTable("runs")
    .set((eb) => ({ ...nextAttemptColumns(eb, now), source: "resume", actor_user_id: actor.userId, actor_kind: actor.kind }))
    .where("id", "=", runId)
    .where("status", "in", ["failed", "failed_resumable"])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Claims the oldest queued run: one atomic UPDATE … WHERE status='queued' … RETURNING on both
 * stores. Where rows can be locked (PostgreSQL) the row is picked FOR UPDATE SKIP LOCKED, so
 * concurrent runners do not queue up behind each other; elsewhere writers are serial anyway.
 */
export async function claimNextRun(
  db: Db,
  claim: { token: string; worker: string; now: number; leaseUntil: number; scope: PoolScope },
): Promise<RunRow | undefined> {
  const scope = claim.scope;
  // A run goes to the pool its org names (orgs.runner_pool); the platform's serves every org that names no pool of its own.
  const orgPool = (eb: ExpressionBuilder<Database, "runs">) =>
    eb.exists(eb.selectFrom("orgs").select("orgs.id").whereRef("orgs.id", "=", "runs.org_id").where("orgs.runner_pool", "=", "org"));
  let pick = db
    .selectFrom("runs")
    .select("id")
    .where("status", "=", "queued")
    .where((eb) => (scope.pool === "platform" ? eb.not(orgPool(eb)) : eb.and([eb("runs.org_id", "=", scope.orgId), orgPool(eb)])))
    .orderBy("queued_at")
    .orderBy("id")
    .limit(1);
  if (dialect(db).lockRows) pick = pick.forUpdate().skipLocked();
  return db
    .updateTable("runs")
    .set((eb) => ({
      status: "running",
      claim_token: claim.token,
      claimed_by: claim.worker,
      lease_expires_at: claim.leaseUntil,
      started_at: eb.fn.coalesce("started_at", eb.val(claim.now)),
      updated_at: claim.now,
    }))
    .where("id", "=", (eb) => eb.selectFrom(pick.as("p")).select("p.id"))
    .where("status", "=", "queued")
    .returningAll()
    .executeTakeFirst();
}

export async function insertAttempt(
  db: Db,
  row: { id: string; run_id: string; number: number; claimed_by: string; runner_id: string | null; started_at: number },
) {
  await db
    .insertInto("run_attempts")
    .values({ ...row, status: "running", finished_at: null, failure_code: null })
    .execute();
}

/** Extends the lease of a run still held under `token`; undefined when the claim was lost. */
export async function extendLease(db: Db, runId: string, token: string, now: number, leaseUntil: number) {
  return db
    .updateTable("runs")
    .set({ lease_expires_at: leaseUntil, updated_at: now })
    .where("id", "=", runId)
    .where("claim_token", "=", token)
    .where("status", "=", "running")
    .returning(["cancel_requested"])
    .executeTakeFirst();
}

/** Ends the running attempt held under `token`; undefined when the claim was lost meanwhile. */
export async function finishClaimedRun(
  db: Db,
  runId: string,
  token: string,
  end: { status: RunStatus; failureCode: string | null; detail: string | null; question?: string | null; summary?: string | null; now: number },
): Promise<RunRow | undefined> {
  const row = await db
    .updateTable("runs")
    .set({
      status: end.status,
      failure_code: end.failureCode,
      failure_detail: end.detail,
      // The attempt that was handed the answer has ended: a new question (or none) replaces both.
      question: end.question ?? null,
      answer: null,
      summary: end.summary ?? null,
      claim_token: null,
      lease_expires_at: null,
      retry_at: null,
      finished_at: end.now,
      updated_at: end.now,
    })
    .where("id", "=", runId)
    .where("claim_token", "=", token)
    .where("status", "=", "running")
    .returningAll()
    .executeTakeFirst();
  if (row) await endAttempt(db, runId, row.attempt, end.status, end.failureCode, end.now);
  return row;
}

export async function endAttempt(db: Db, runId: string, number: number, status: RunStatus, failureCode: string | null, now: number) {
  await db
    .updateTable("run_attempts")
    .set({ status, failure_code: failureCode, finished_at: now })
    .where("run_id", "=", runId)
    .where("number", "=", number)
    .where("status", "=", "running")
    .execute();
}

/** Runs whose runner stopped heartbeating; flips them to failed_resumable and returns them. */
export async function reclaimExpiredRuns(db: Db, now: number): Promise<RunRow[]> {
  const rows = await db
    .updateTable("runs")
    .set((eb) => ({
      status: "failed_resumable",
      runner_losses: eb("runner_losses", "+", 1),
      failure_code: "RUNNER_LOST",
      failure_detail: "the runner stopped heartbeating",
      claim_token: null,
      retry_at: null,
      lease_expires_at: null,
      finished_at: now,
      updated_at: now,
    }))
    // A literal, so the planner can use the partial index of running runs (migration 0009).
    .where("status", "=", sql.lit("running"))
    .where("lease_expires_at", "<", now)
    .returningAll()
    .execute();
  for (const r of rows) await endAttempt(db, r.id, r.attempt, "failed_resumable", "RUNNER_LOST", now);
  return rows;
}

/** Fails a run that is still active (a launch that failed after admission). */
export async function failActiveRun(db: Db, runId: string, code: string, detail: string, now: number): Promise<RunRow | undefined> {
  const row = await db
    .updateTable("runs")
    .set({
      status: "failed",
      failure_code: code,
      failure_detail: detail,
      cancel_requested: 1,
      claim_token: null,
      lease_expires_at: null,
      finished_at: now,
      updated_at: now,
    })
    .where("id", "=", runId)
    .where("status", "in", ["queued", "running"])
    .returningAll()
    .executeTakeFirst();
  if (row) await endAttempt(db, runId, row.attempt, "failed", code, now);
  return row;
}

/**
 * Cancels runs: queued ones at once, running ones by flagging cancel_requested, which their
 * runner sees at the next heartbeat. Returns how many of each.
 */
export async function cancelRuns(
  db: Db,
  match: { runId?: string; teamId?: string; subjectId?: string },
  now: number,
): Promise<{ cancelled: number; requested: number; disarmed: number }> {
  const scope = (eb: ExpressionBuilder<Database, "runs">) => {
    const conds: Expression<SqlBool>[] = [];
    if (match.runId) conds.push(eb("id", "=", match.runId));
    if (match.teamId) conds.push(eb("team_id", "=", match.teamId));
    if (match.subjectId) conds.push(eb.or([eb("subject_id", "=", match.subjectId), eb("parent_subject_id", "=", match.subjectId)]));
    return eb.and(conds);
  };
  const queued = await db
    .updateTable("runs")
    .set({ status: "cancelled", cancel_requested: 1, failure_code: "CANCELLED", finished_at: now, updated_at: now })
    .where(scope)
    .where("status", "=", "queued")
    .executeTakeFirst();
  const running = await db
    .updateTable("runs")
    .set({ cancel_requested: 1, updated_at: now })
    .where(scope)
    .where("status", "=", "running")
    .where("cancel_requested", "=", 0)
    .executeTakeFirst();
  // A closed pull request also disarms the armed usage-window retries of its runs.
  const disarmed = await db.updateTable("runs").set({ retry_at: null, updated_at: now }).where(scope).where("retry_at", "is not", null).executeTakeFirst();
  return { cancelled: Number(queued.numUpdatedRows), requested: Number(running.numUpdatedRows), disarmed: Number(disarmed.numUpdatedRows) };
}

/** Deletes the run and everything recorded under it; the org and ledger counters keep their sums. */
export async function deleteRun(db: Db, runId: string): Promise<boolean> {
  await db.deleteFrom("run_usage_events").where("run_id", "=", runId).execute();
  await deleteRunCredentials(db, runId);
  await deleteRunLogs(db, runId);
  await db.deleteFrom("run_status_reports").where("run_id", "=", runId).execute();
  await deleteQuestionPosts(db, runId);
  await db.deleteFrom("run_attempts").where("run_id", "=", runId).execute();
  const r = await db.deleteFrom("runs").where("id", "=", runId).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

export function listAttempts(db: Db, runId: string) {
  return db.selectFrom("run_attempts").selectAll().where("run_id", "=", runId).orderBy("number").execute();
}

/** The run's recorded spend, all attempts together. */
export async function sumRunUsage(db: Db, runId: string) {
  const row = await db
    .selectFrom("run_usage_events")
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number>("cost_micro"), eb.val(0)).as("cost_micro"),
      eb.fn.coalesce(eb.fn.sum<number>("input_tokens"), eb.val(0)).as("input_tokens"),
      eb.fn.coalesce(eb.fn.sum<number>("output_tokens"), eb.val(0)).as("output_tokens"),
      eb.fn.coalesce(eb.fn.sum<number>("aggregate_tokens"), eb.val(0)).as("aggregate_tokens"),
      eb.fn.countAll<number>().as("reports"),
    ])
    .where("run_id", "=", runId)
    .executeTakeFirstOrThrow();
  return {
    costMicro: Number(row.cost_micro),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    aggregateTokens: Number(row.aggregate_tokens),
    reports: Number(row.reports),
  };
}

/** An attempt by its id (the claim token its runner holds). */
export function findAttempt(db: Db, id: string) {
  return db.selectFrom("run_attempts").selectAll().where("id", "=", id).executeTakeFirst();
}
