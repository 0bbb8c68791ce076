import type { Db } from "./db.js";
import { nextAttemptColumns, type RunRow } from "./runs.js";

/** The org's and the webhook's layers of a run's retry policy (the webhook's undefined for other launches). */
export async function retryLayersOf(db: Db, runId: string) {
  const row = await db
    .selectFrom("runs")
    .innerJoin("orgs", "orgs.id", "runs.org_id")
    .leftJoin("webhooks", "webhooks.id", "runs.webhook_id")
    .select([
      "orgs.retry_usage_window as org_window",
      "orgs.retry_max_attempts as org_attempts",
      "orgs.retry_max_wait as org_wait",
      "orgs.retry_jitter as org_jitter",
      "webhooks.id as webhook_id",
      "webhooks.retry_usage_window as hook_window",
      "webhooks.retry_max_attempts as hook_attempts",
      "webhooks.retry_max_wait as hook_wait",
      "webhooks.retry_jitter as hook_jitter",
    ])
    .where("runs.id", "=", runId)
    .executeTakeFirst();
  if (!row) return undefined;
  const org = { retry_usage_window: row.org_window, retry_max_attempts: row.org_attempts, retry_max_wait: row.org_wait, retry_jitter: row.org_jitter };
  const webhook = row.webhook_id
    ? { retry_usage_window: row.hook_window, retry_max_attempts: row.hook_attempts, retry_max_wait: row.hook_wait, retry_jitter: row.hook_jitter }
    : undefined;
  return { org, webhook };
}

/** Arms a failed_resumable run's retry at `at`. */
export async function armRetry(db: Db, runId: string, at: number): Promise<void> {
  await db.updateTable("runs").set({ retry_at: at }).where("id", "=", runId).where("status", "=", "failed_resumable").execute();
}

/** Failed_resumable runs whose retry is due, oldest first. */
export function dueRetries(db: Db, now: number, limit: number): Promise<RunRow[]> {
  return db
    .selectFrom("runs")
    .selectAll()
    .where("retry_at", "<=", now)
    .where("status", "=", "failed_resumable")
    .orderBy("retry_at")
    .orderBy("id")
    .limit(limit)
    .execute();
}

/**
 * Takes a due retry: clears it and counts it, only while it is still armed for `due`; false when
 * another replica took it (or a closed pull request disarmed it) first.
 */
export async function takeRetry(db: Db, runId: string, due: number): Promise<boolean> {
  const r = await db
    .updateTable("runs")
    .set((eb) => ({ retry_at: null, auto_retries: eb("auto_retries", "+", 1) }))
    .where("id", "=", runId)
    .where("retry_at", "=", due)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Parks a run on the dead-letter queue, disarming any retry. */
export async function deadLetter(db: Db, runId: string, reason: string, now: number): Promise<void> {
  await db.updateTable("runs").set({ dead_lettered_at: now, dead_letter_reason: reason, retry_at: null, updated_at: now }).where("id", "=", runId).execute();
}

/** Runs on the dead-letter queue, in all. */
export async function countDeadLetters(db: Db): Promise<number> {
  const row = await db
    .selectFrom("runs")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("dead_lettered_at", "is not", null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A team's dead-lettered runs, newest first. */
export function listDeadLetters(db: Db, teamId: string, limit: number): Promise<RunRow[]> {
  return db
    .selectFrom("runs")
    .selectAll()
    .where("team_id", "=", teamId)
    .where("dead_lettered_at", "is not", null)
    .orderBy("dead_lettered_at", "desc")
    .limit(limit)
    .execute();
}

/**
 * Re-publishes a dead-lettered run as its next attempt, marked as counted already: the launch it
 * repeats was metered once. False when the run is not on the dead-letter queue (or is active).
 */
export async function republishRun(db: Db, runId: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable("runs")
    .set((eb) => ({ ...nextAttemptColumns(eb, now), metered_attempt: eb("attempt", "+", 1), retry_at: null }))
    .where("id", "=", runId)
    .where("dead_lettered_at", "is not", null)
    .where("status", "in", ["failed", "failed_resumable"])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Takes a run off the dead-letter queue for good: failed, no longer resumable by a sweeper. */
export async function discardDeadLetter(db: Db, runId: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable("runs")
    .set({ status: "failed", retry_at: null, dead_lettered_at: null, updated_at: now })
    .where("id", "=", runId)
    .where("dead_lettered_at", "is not", null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
