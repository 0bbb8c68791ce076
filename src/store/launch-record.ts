import type { Db } from "./db.js";
import { insertDelivery, retryFailedDelivery, settleAcceptedDelivery, type NewDelivery } from "./deliveries.js";
import type { CallLimits } from "./delivery-ledger.js";

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
export type LaunchRecord = { insert: NewDelivery; admission?: CallLimits; replayOf?: string } | { settle: { id: string; from: "launch_error" | "accepted" } };

/** A record's outcome columns: launched with its run, or the gate's denial. */
export type RecordOutcome = Pick<NewDelivery, "status" | "run_id" | "launched_at" | "failed_at" | "denial_reason" | "reason" | "updated_at">;

export function launchedColumns(runId: string, now: number): RecordOutcome {
  return { status: "launched", run_id: runId, launched_at: now, failed_at: null, denial_reason: null, reason: null, updated_at: now };
}

export function deniedColumns(denial: { error: string; detail: string }, now: number): RecordOutcome {
  return { status: "launch_error", run_id: null, launched_at: null, failed_at: now, denial_reason: denial.error, reason: denial.detail, updated_at: now };
}

/**
 * Writes the record with its outcome. False when the row to settle has left `from` (a concurrent
 * delivery or a newer push took it first); an insert under a held key fails on the key's unique
 * index. Either is a lost race, and the whole commit is rolled back.
 */
export async function writeLaunchRecord(tx: Db, record: LaunchRecord, outcome: RecordOutcome): Promise<boolean> {
  if ("insert" in record) {
    await insertDelivery(tx, Object.assign(record.insert, outcome));
    return true;
  }
  const { id, from } = record.settle;
  if (from === "launch_error") return retryFailedDelivery(tx, id, outcome);
  return (await settleAcceptedDelivery(tx, id, outcome)) !== undefined;
}
