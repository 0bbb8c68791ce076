import type { Logger } from "pino";
import type { LaunchRequest, LaunchResult } from "../admission/launch-types.js";
import type { Launcher } from "../admission/launcher.js";
import { newRunRow } from "../admission/new-run-row.js";
import type { Clock } from "../core/clock.js";
import type { IdGenerator } from "../core/ids.js";
import { monthOf } from "../core/month.js";
import { findDeliveryByKey, insertDelivery, type KeyHolder, type NewDelivery } from "../store/deliveries.js";
import type { CallLimits, CallRefusal, CommitAnswer } from "../store/delivery-ledger.js";
import { isUniqueViolation } from "../store/errors.js";
import type { RunRow } from "../store/runs.js";
import type { Store } from "../store/store.js";

/** A delivery row committed with the run it launches, under a key its tenant holds once. */
export interface RecordedLaunch {
  tenantId: string;
  idempotencyKey: string;
  /** The row, built from the run. */
  row: (run: RunRow) => NewDelivery;
  /** `noLimitApplies` held for the owner as the target was read: the ledger's one commit is tried first. */
  ungated: boolean;
  /** The webhook call's admission, taken first: the launch happens only when it admits. */
  admission?: CallLimits;
  /** This delivery's own row's id when another holds the key: written in the same commit when it can be. */
  replayOf?: string;
}

/** As {@link LaunchResult}, or `taken` when a row holds the key, or `refused` by the call's admission. */
export type RecordedLaunchResult = LaunchResult | { kind: "taken"; holder: KeyHolder; recorded: boolean } | { kind: "refused"; refusal: CallRefusal };

export interface LaunchDeliveryDeps {
  store: Store;
  launcher: Launcher;
  ids: IdGenerator;
  clock: Clock;
  log: Logger;
}

/**
 * A delivery's launch. When no limit applies, the admission, the key check and the writes are one
 * ledger commit; when the store answers `gate` (or a limit applies), the admission is written on
 * its own, the key is looked up, and the gate's transaction writes the row with the run, as any
 * launch. A unique violation (a concurrent delivery won the key) reaches the caller.
 */
export async function launchDelivery(deps: LaunchDeliveryDeps, request: LaunchRequest, record: RecordedLaunch): Promise<RecordedLaunchResult> {
  const { store, launcher } = deps;
  let keyChecked = false;
  if (record.ungated) {
    const answer = await commitUngated(deps, request, record);
    if (answer.kind === "refused" || answer.kind === "taken") return answer;
    if (answer.kind === "launched") return answer.result;
    keyChecked = answer.kind === "gate";
  } else if (record.admission) {
    const admission = await store.ledger.admit(record.admission);
    if (admission.kind !== "admitted") return { kind: "refused", refusal: admission };
  }
  const holder = keyChecked ? undefined : await findDeliveryByKey(store.db, record.tenantId, record.idempotencyKey);
  if (holder) return { kind: "taken", holder, recorded: false };
  return launcher.launch(request, { within: (tx, run) => insertDelivery(tx, record.row(run)) });
}

type Ungated =
  | Extract<CommitAnswer, { kind: "refused" | "taken" | "gate" }>
  | { kind: "launched"; result: LaunchResult }
  /** The commit failed before any write it could not take back: the gate decides. */
  | { kind: "failed" };

async function commitUngated(deps: LaunchDeliveryDeps, request: LaunchRequest, record: RecordedLaunch): Promise<Ungated> {
  const now = deps.clock.now();
  const month = monthOf(now);
  // The store sets the run's org from the team.
  const run = newRunRow(request, deps.ids.next("run"), "", now, month);
  try {
    const launch = { teamId: request.teamId, run, month };
    const answer = await deps.store.ledger.commit({ admission: record.admission, row: record.row(run), launch, replayOf: record.replayOf });
    if (answer.kind === "launched") return { kind: "launched", result: { kind: "launched", run: { ...run, org_id: answer.orgId }, metered: true } };
    if (answer.kind === "refused" || answer.kind === "taken" || answer.kind === "gate") return answer;
    throw new Error(`the ledger answered ${answer.kind} to a launch`);
  } catch (err) {
    // With the admission in the same commit, whether it committed is not known: no fallback.
    if (isUniqueViolation(err) || record.admission) throw err;
    deps.log.warn({ err, teamId: request.teamId }, "one-commit launch failed; taking the gate's transaction");
    return { kind: "failed" };
  }
}
