import { updateCard } from "./board.js";
import type { Db } from "./db.js";
import { insertDelivery, retryFailedDelivery, settleAcceptedDelivery, type NewDelivery } from "./deliveries.js";
import type { CallLimits } from "./delivery-ledger.js";
import { takeRetry } from "./run-retries.js";
import { answerQuestion } from "./runs.js";
import { advanceSchedule } from "./schedules.js";
import { insertTriggerLaunch, updateSubscription } from "./triggers.js";

/**
 * The delivery row a launch writes with its run, as data: the launcher hands it to the store,
 * which writes it in the launch's own commit (the gate's transaction, or the ledger's one commit
 * when no limit applies).
 * - `insert`: a new row under its idempotency key; its outcome columns are filled in place
 *   (launched with the run, or the gate's denial). `admission` is the webhook call's, written first; `replayOf` is this delivery's
 *   own duplicate row's id, written in the same commit when another row holds the key.
 * - `settle`: a row already written, turned launched with the run while it is still in `from`
 *   (a launch_error retried in place, a parked push's `accepted` row).
 */
export type DeliveryRecord = { insert: NewDelivery; admission?: CallLimits; replayOf?: string } | { settle: { id: string; from: "launch_error" | "accepted" } };

/**
 * A surface's own rows, written with its new run in the launch's transaction:
 * - `card`: the board card moved from ready to running with the run, while it is still ready;
 * - `trigger`: the subscription's last launch, and with `key` the emit's launch under its
 *   idempotency key, while no other launch of the subscription holds that key;
 * - `schedule`: the schedule moved from occurrence `due` to `next`, while it is still at `due`.
 */
export type SurfaceRecord =
  | { card: { id: string } }
  | { trigger: { teamId: string; subscriptionId: string; key?: string } }
  | { schedule: { id: string; due: number; next: number | null } };

/**
 * A resumed run's own write, in the resume's transaction:
 * - `retry`: its armed retry due at `due` taken, while still armed for then;
 * - `answer`: the person's answer to the question it waits on kept for its next attempt.
 */
export type ResumeRecord = { retry: { due: number } } | { answer: string };

/** What a launch writes with its run, as data. */
export type LaunchRecord = DeliveryRecord | SurfaceRecord | ResumeRecord;

/** A record's outcome columns: launched with its run, or the gate's denial. */
export type RecordOutcome = Pick<NewDelivery, "status" | "run_id" | "launched_at" | "failed_at" | "denial_reason" | "reason" | "updated_at">;

export function launchedColumns(runId: string, now: number): RecordOutcome {
  return { status: "launched", run_id: runId, launched_at: now, failed_at: null, denial_reason: null, reason: null, updated_at: now };
}

export function deniedColumns(denial: { error: string; detail: string }, now: number): RecordOutcome {
  return { status: "launch_error", run_id: null, launched_at: null, failed_at: now, denial_reason: denial.error, reason: denial.detail, updated_at: now };
}

export function isDeliveryRecord(record: LaunchRecord): record is DeliveryRecord {
  return "insert" in record || "settle" in record;
}

/**
 * Writes a delivery's record with its outcome. False when the row to settle has left `from` (a
 * concurrent delivery or a newer push took it first); an insert under a held key fails on the
 * key's unique index. Either is a lost race, and the whole commit is rolled back.
 */
export async function writeDeliveryRecord(tx: Db, record: DeliveryRecord, outcome: RecordOutcome): Promise<boolean> {
  if ("insert" in record) {
    await insertDelivery(tx, Object.assign(record.insert, outcome));
    return true;
  }
  const { id, from } = record.settle;
  if (from === "launch_error") return retryFailedDelivery(tx, id, outcome);
  return (await settleAcceptedDelivery(tx, id, outcome)) !== undefined;
}

/**
 * Writes the record of run `runId`, launched (or resumed) at `now`, in the launch's transaction.
 * False when a race took what it writes (its row left the state it expects, or its key is
 * held): the launch is then rolled back whole.
 */
export async function writeLaunchRecord(tx: Db, record: LaunchRecord, runId: string, now: number): Promise<boolean> {
  if (isDeliveryRecord(record)) return writeDeliveryRecord(tx, record, launchedColumns(runId, now));
  if ("card" in record) {
    const patch = { column: "running" as const, provenance: "dispatched", run_id: runId, lease_until: 0, last_error: null, updated_at: now };
    return updateCard(tx, record.card.id, ["ready"], patch);
  }
  if ("trigger" in record) {
    const { teamId, subscriptionId, key } = record.trigger;
    if (key !== undefined && !(await insertTriggerLaunch(tx, teamId, key, subscriptionId, runId, now))) return false;
    await updateSubscription(tx, subscriptionId, { last_run_id: runId, last_launched_at: now, last_error: null, last_error_at: null });
    return true;
  }
  if ("schedule" in record) {
    const { id, due, next } = record.schedule;
    return advanceSchedule(tx, id, due, next, { last_run_at: now, last_run_id: runId, last_error: null, last_error_at: null });
  }
  if ("retry" in record) return takeRetry(tx, runId, record.retry.due);
  return answerQuestion(tx, runId, record.answer, now);
}
