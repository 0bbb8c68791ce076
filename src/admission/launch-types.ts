import type { Db } from "../store/store.js";
import type { duplicateRow, KeyHolder, NewDelivery } from "../store/deliveries.js";
import type { CallLimits, CallRefusal } from "../store/intake.js";
import type { RunRow } from "../store/runs.js";
import type { LaunchDenial } from "./decide-launch.js";

/** Where a launch came from; every one of them passes the gate. */
export type LaunchSource = "api" | "webhook" | "resume" | "retry" | "board" | "trigger" | "schedule";

/** Who launched: a user, or a synthetic identity (webhook token, sweeper, scheduler). */
export interface LaunchActor {
  userId: string | null;
  kind: "user" | "webhook" | "retry-sweeper" | "board-dispatcher" | "trigger-spine" | "scheduler";
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
   * metering writes), so the caller's own rows
   * (the intake's delivery row) commit together with the gate's writes, or not at all. An error
   * thrown here rolls everything back and reaches the caller unchanged.
   */
  within?: (tx: Db, run: RunRow) => Promise<void>;
}

/** A delivery row committed with the run it launches, under a key its tenant holds once. */
export interface RecordedLaunch {
  tenantId: string;
  idempotencyKey: string;
  /** The row, built from the run (the intake's launching delivery). */
  row: (run: RunRow) => NewDelivery;
  /** The gate must decide (the team is not active): no one-call launch. */
  gated?: boolean;
  /**
   * The webhook call's admission, taken first: the launch happens only when it admits. On
   * PostgreSQL, on the one-call path, both go in one round trip (store/postgres/deliver-webhook-calls.sql).
   */
  admission?: CallLimits;
  /**
   * The id of the row this delivery records when another holds its key (not a launch_error
   * row, which the caller retries): when the launch writes it ({@link duplicateRow}, in the
   * same call), `taken` says `recorded`; otherwise the caller writes it.
   */
  duplicateId?: string;
}

export type LaunchResult =
  /** HTTP 201: the run is queued. `metered` is false only when the gate failed open. */
  | { kind: "launched"; run: RunRow; metered: boolean }
  /** The gate's status (403, 429, 402) with the denial envelope. */
  | { kind: "denied"; denial: LaunchDenial };

/**
 * A recorded launch: as {@link LaunchResult}, or `taken` when a row holds the key already, or
 * `refused` when the call's admission refused it (nothing launched, no row written).
 */
export type RecordedLaunchResult = LaunchResult | { kind: "taken"; row: KeyHolder; recorded?: boolean } | { kind: "refused"; refusal: CallRefusal };
