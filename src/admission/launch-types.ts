import type { Db } from "../store/store.js";
import type { RunRow } from "../store/runs.js";
import type { KeyHolder } from "../store/deliveries.js";
import type { CallRefusal } from "../store/delivery-ledger.js";
import type { ActiveRun } from "../store/active-runs.js";
import type { LaunchRecord } from "../store/launch-record.js";
import type { LaunchDenial } from "./decide-launch.js";

/** Where a launch came from; every one of them passes the gate. */
export type LaunchSource = "api" | "webhook" | "resume" | "retry" | "board" | "trigger" | "schedule";

/** Who launched: a user, or a synthetic identity (webhook token, sweeper, scheduler). */
export interface LaunchActor {
  userId: string | null;
  kind: "user" | "webhook" | "retry-sweeper" | "board-dispatcher" | "trigger-spine" | "cloud-scheduler";
}

export interface LaunchRequest {
  teamId: string;
  botId: string;
  vars: Record<string, string>;
  repoUrl?: string | null;
  repoRef?: string | null;
  projectPath?: string | null;
  connectionId?: string | null;
  /** The forge object the run works on (PR, MR, comment); "PR closed" stops runs bound to it. */
  subjectId?: string | null;
  parentSubjectId?: string | null;
  webhookId?: string | null;
  deliveryId?: string | null;
  source: LaunchSource;
  actor: LaunchActor;
  /** Super-admin launches skip the checks; they are still metered. */
  bypassGate?: boolean;
}

export interface LaunchOptions {
  /**
   * Runs inside the launch transaction right after the run row is written (before the
   * metering writes), so the caller's own rows (a board card, a trigger's launch, a schedule)
   * commit together with the gate's writes, or not at all. An error thrown here rolls
   * everything back and reaches the caller unchanged. A delivery's row is not a callback: it is
   * {@link RecordedLaunchOptions.record}, data the store writes.
   */
  within?: (tx: Db, run: RunRow) => Promise<void>;
}

/**
 * `overlap: skip` as one step with the launch: nothing launches while a run of the same webhook,
 * subject and bot is in flight (one launched under `key` excepted: that is this delivery's own).
 */
export interface OverlapGuard {
  webhookId: string;
  subjectId: string;
  botId: string;
  key: string;
}

/** A delivery's launch: its row as data, written by the store in the launch's own commit. */
export interface RecordedLaunchOptions {
  record: LaunchRecord;
  overlap?: OverlapGuard;
}

/**
 * As {@link LaunchResult}, and:
 * - `taken`: the key is held, or a concurrent delivery won the race for it (`holder` unknown
 *   then); `recorded` when this delivery's own duplicate row was written (`replayOf`);
 * - `refused`: the call's admission refused it; nothing written;
 * - `overlapping`: `overlap` found these runs in flight; nothing written.
 */
export type RecordedLaunchResult =
  | LaunchResult
  | { kind: "taken"; holder: KeyHolder | undefined; recorded: boolean }
  | { kind: "refused"; refusal: CallRefusal }
  | { kind: "overlapping"; active: ActiveRun[] };

export type LaunchResult =
  /** HTTP 201: the run is queued. `metered` is false only when the gate failed open. */
  | { kind: "launched"; run: RunRow; metered: boolean }
  /** The gate's status (403, 429, 402) with the denial envelope. */
  | { kind: "denied"; denial: LaunchDenial };
