import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import type { IdGenerator } from "../core/ids.js";
import type { Metering, UsageReport } from "../metering/metering.js";
import type { Metrics } from "../metrics/metrics.js";
import * as q from "../store/runs.js";
import type { UsageWindow } from "./runner/usage-line.js";
import type { BotQuestion } from "./runner/bot-output.js";
import type { Db, Store } from "../store/store.js";
import type { PoolScope } from "../store/runner-tokens.js";
import { armRetry, countDeadLetters, deadLetter, retryLayersOf } from "../store/run-retries.js";
import { noteQuestionPost } from "../store/question-posts.js";
import { planRetry, resolveRetryPolicy, type RetryPlan } from "./retry-policy.js";
import type { RetryPolicy } from "../config/config.js";

/** A run as a runner holds it: the claim token proves the lease on every later call. */
export interface ClaimedRun {
  run: q.RunRow;
  claimToken: string;
  attempt: number;
  vars: Record<string, string>;
}

/** What proves an attempt's claim when it ends: its run, its number and its claim token. */
export type AttemptClaim = Pick<ClaimedRun, "claimToken" | "attempt"> & { run: Pick<q.RunRow, "id"> };

export const PLATFORM_POOL: PoolScope = { pool: "platform" };

/**
 * How an attempt ended. `summary` is the bot's one-line account; `question` what it stopped to
 * ask (a failed_resumable QUESTION: the run waits for a person's answer).
 */
export type RunOutcome = (
  | { status: "succeeded" }
  | { status: "failed" | "failed_resumable"; failureCode: string; detail?: string; usageWindow?: UsageWindow; question?: BotQuestion }
  | { status: "cancelled" }
) & { summary?: string };

/** A run whose runner is lost this often (it may be what kills them) is parked on the dead-letter queue. */
const POISON_RUNNER_LOSSES = 3;

export interface RunsDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  metrics: Metrics;
  log: Logger;
  metering: Metering;
  /** The platform's layer of the usage-window retry policy. */
  retryDefaults: RetryPolicy;
  /** Told when attempts end (finished, failed, cancelled, reclaimed): the tokens they held may be revoked. */
  attemptEnded?: () => void;
}

/**
 * The run queue as runners see it: claim with a lease, heartbeat, finish with usage. Also the
 * stops that act on many runs (forge "PR closed") and the orphan reclaim.
 */
export class Runs {
  constructor(private readonly deps: RunsDeps) {}

  /**
   * Claims the oldest queued run of the pool for `worker`, holding it for `leaseMs` unless
   * heartbeats extend it. `runnerId` names the runner token behind a remote runner.
   */
  async claim(worker: string, leaseMs: number, scope: PoolScope = PLATFORM_POOL, runnerId: string | null = null): Promise<ClaimedRun | undefined> {
    const now = this.deps.clock.now();
    // The attempt's id is its claim token: the runner proves its lease with the attempt it runs.
    const token = this.deps.ids.next("att");
    const run = await this.deps.store.tx(async (tx) => {
      const row = await q.claimNextRun(tx, { token, worker, now, leaseUntil: now + leaseMs, scope });
      if (row) await q.insertAttempt(tx, { id: token, run_id: row.id, number: row.attempt, claimed_by: worker, runner_id: runnerId, started_at: now });
      return row;
    });
    if (!run) return undefined;
    return { run, claimToken: token, attempt: run.attempt, vars: parseVars(run.vars) };
  }

  /**
   * Extends the lease. `held: false` means the run was taken away (reclaimed or failed); the
   * runner stops it. `cancelRequested` carries a cancel to the runner at its next heartbeat.
   */
  async heartbeat(runId: string, claimToken: string, leaseMs: number): Promise<{ held: boolean; cancelRequested: boolean }> {
    const now = this.deps.clock.now();
    const row = await q.extendLease(this.deps.store.db, runId, claimToken, now, now + leaseMs);
    return row ? { held: true, cancelRequested: row.cancel_requested === 1 } : { held: false, cancelRequested: true };
  }

  /**
   * Ends the attempt and records its usage. Usage is recorded even when the claim was lost
   * meanwhile: the money was spent either way, and each report counts once.
   */
  async finish(claim: AttemptClaim, outcome: RunOutcome, usage: UsageReport[] = []): Promise<{ finished: boolean }> {
    const now = this.deps.clock.now();
    const failureCode = outcome.status === "failed" || outcome.status === "failed_resumable" ? outcome.failureCode : null;
    const detail = "detail" in outcome ? (outcome.detail ?? null) : null;
    const window = "usageWindow" in outcome ? outcome.usageWindow : undefined;
    // Usage first: whoever sees the run ended sees what it cost.
    for (const report of usage) await this.deps.metering.record(claim.run.id, claim.attempt, report);
    const { row, plan } = await this.deps.store.tx(async (tx) => {
      const question = "question" in outcome && outcome.question ? JSON.stringify(outcome.question) : null;
      const end = { status: outcome.status, failureCode, detail, question, summary: outcome.summary ?? null, now };
      const row = await q.finishClaimedRun(tx, claim.run.id, claim.claimToken, end);
      // Posted on the pull request's thread too, where the run's webhook asks for that.
      if (row && question !== null) await noteQuestionPost(tx, row.id, row.attempt, now);
      return { row, plan: row && window ? await this.planRetry(tx, row, window, now) : undefined };
    });
    if (row) {
      this.deps.metrics.runsFinished.inc({ status: outcome.status });
      this.deps.attemptEnded?.();
    }
    if (plan) {
      this.deps.metrics.usageWindowBlocked.inc();
      if (plan.kind === "arm") this.deps.metrics.retryScheduled.inc();
      if (plan.kind === "give_up") this.deps.metrics.dlqDepth.set(await countDeadLetters(this.deps.store.db));
    }
    return { finished: row !== undefined };
  }

  /** A run its bot stopped on an exhausted usage window: its retry armed, left to a person, or dead-lettered. */
  private async planRetry(tx: Db, run: q.RunRow, window: UsageWindow, now: number): Promise<RetryPlan> {
    const layers = await retryLayersOf(tx, run.id);
    const policy = resolveRetryPolicy(this.deps.retryDefaults, layers?.org, layers?.webhook);
    const plan = planRetry(policy, run.auto_retries, window.resetAt, now);
    if (plan.kind === "arm") await armRetry(tx, run.id, plan.at);
    if (plan.kind === "give_up") await deadLetter(tx, run.id, plan.reason, now);
    return plan;
  }

  /** Flips running runs whose lease expired to failed_resumable, so they stop holding a slot. */
  async reclaimExpiredLeases(now: number = this.deps.clock.now()): Promise<number> {
    const rows = await this.deps.store.tx(async (tx) => {
      const lost = await q.reclaimExpiredRuns(tx, now);
      const poison = lost.filter((r) => r.runner_losses >= POISON_RUNNER_LOSSES);
      for (const r of poison) await deadLetter(tx, r.id, `its runner was lost ${r.runner_losses} times`, now);
      return lost;
    });
    if (rows.some((r) => r.runner_losses >= POISON_RUNNER_LOSSES)) this.deps.metrics.dlqDepth.set(await countDeadLetters(this.deps.store.db));
    if (rows.length > 0) {
      this.deps.attemptEnded?.();
      this.deps.metrics.orphanRecovered.inc(rows.length);
      this.deps.metrics.runsFinished.inc({ status: "failed_resumable" }, rows.length);
      this.deps.log.warn({ runs: rows.map((r) => r.id) }, "runs whose runner stopped heartbeating set to failed_resumable");
    }
    return rows.length;
  }

  /** Cancels queued runs bound to the subject (or with it as parent) and asks running ones to stop. */
  async stopBySubject(teamId: string, subjectId: string): Promise<{ cancelled: number; cancelRequested: number; retriesDisarmed: number }> {
    return this.stop({ teamId, subjectId });
  }

  /** Cancels one run: at once when queued, at the runner's next heartbeat when running. */
  async cancel(runId: string): Promise<{ cancelled: number; cancelRequested: number; retriesDisarmed: number }> {
    return this.stop({ runId });
  }

  private async stop(match: { runId?: string; teamId?: string; subjectId?: string }) {
    const r = await this.deps.store.tx((tx) => q.cancelRuns(tx, match, this.deps.clock.now()));
    if (r.cancelled > 0) this.deps.metrics.runsFinished.inc({ status: "cancelled" }, r.cancelled);
    return { cancelled: r.cancelled, cancelRequested: r.requested, retriesDisarmed: r.disarmed };
  }
}

export function parseVars(stored: string): Record<string, string> {
  try {
    const v: unknown = JSON.parse(stored);
    if (typeof v !== "object" || v === null || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string"));
  } catch {
    return {};
  }
}
