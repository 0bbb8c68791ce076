import type { Db } from "../store/store.js";
import type { RunRow } from "../store/runs.js";
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
   * metering writes), so the caller's own rows
   * (the intake's delivery row) commit together with the gate's writes, or not at all. An error
   * thrown here rolls everything back and reaches the caller unchanged.
   */
  within?: (tx: Db, run: RunRow) => Promise<void>;
}

export type LaunchResult =
  /** HTTP 201: the run is queued. `metered` is false only when the gate failed open. */
  | { kind: "launched"; run: RunRow; metered: boolean }
  /** The gate's status (403, 429, 402) with the denial envelope. */
  | { kind: "denied"; denial: LaunchDenial };
