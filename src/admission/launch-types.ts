import type { RunRow } from "../store/runs.js";
import type { KeyHolder } from "../store/deliveries.js";
import type { CallRefusal } from "../store/delivery-ledger.js";
import type { ActiveRun } from "../store/active-runs.js";
import type { DeliveryRecord, ResumeRecord, SurfaceRecord } from "../store/launch-record.js";
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
  record: DeliveryRecord;
  overlap?: OverlapGuard;
}

/** A board card's, a trigger's or a schedule's launch: its own rows as data, written with the run. */
export interface SurfaceLaunchOptions {
  record: SurfaceRecord;
}

/** A resume's own write (a retry taken, an answer kept), as data written with the requeued run. */
export interface ResumeOptions {
  record: ResumeRecord;
}

export type LaunchResult =
  /** HTTP 201: the run is queued. `metered` is false only when the gate failed open. */
  | { kind: "launched"; run: RunRow; metered: boolean }
  /** The gate's status (403, 429, 402) with the denial envelope. */
  | { kind: "denied"; denial: LaunchDenial };

/**
 * A lost race: the record's key is held, or what it writes left the state it expects. Nothing was
 * written. For a delivery, `holder` is the key's holder when known and `recorded` tells whether
 * its own duplicate row was written (`replayOf`).
 */
export type TakenResult = { kind: "taken"; holder: KeyHolder | undefined; recorded: boolean };

/** As {@link LaunchResult}, or {@link TakenResult}: a launch or resume with a surface's or a resume's record. */
export type SurfaceLaunchResult = LaunchResult | TakenResult;

/**
 * As {@link SurfaceLaunchResult}, and:
 * - `refused`: the call's admission refused it; nothing written;
 * - `overlapping`: `overlap` found these runs in flight; nothing written.
 */
export type RecordedLaunchResult = SurfaceLaunchResult | { kind: "refused"; refusal: CallRefusal } | { kind: "overlapping"; active: ActiveRun[] };
