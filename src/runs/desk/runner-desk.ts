import type { Logger } from "pino";
import type { Clock } from "../../core/clock.js";
import { ServiceError, notFound } from "../../core/errors.js";
import type { RunCredentials } from "../../credentials/run-credentials.js";
import type { UsageReport } from "../../metering/metering.js";
import type { Metrics } from "../../metrics/metrics.js";
import { findAttempt } from "../../store/runs.js";
import type { Store } from "../../store/store.js";
import type { Runs } from "../runs.js";
import type { BotCommands } from "../runner/bot-commands.js";
import type { AttemptOutputStore, OutputChunk } from "../runner/bot-output.js";
import type { AttemptReport, AttemptTicket } from "../runner/runner-transport.js";
import type { BotUsageLine } from "../runner/usage-line.js";
import type { RunnerIdentity } from "./runner-tokens.js";

/** A claim lapses this long after the last heartbeat; the reclaim then frees its slot (RUNNER_LOST). */
export const DEFAULT_LEASE_MS = 60_000;

export interface RunnerDeskDeps {
  runs: Runs;
  bots: BotCommands;
  /** Hands each attempt its keys and secrets when it is claimed. */
  credentials: Pick<RunCredentials, "handOver">;
  store: Store;
  clock: Clock;
  metrics: Metrics;
  log: Logger;
  /** Where an attempt's output lines are kept; without one they are checked and let go. */
  output?: AttemptOutputStore;
  leaseMs?: number;
}

/**
 * The service's side of the runner protocol, for the in-process runner and for runners over HTTP
 * alike: a claim answers one attempt with its bot, input and credentials; heartbeats, output and
 * the finish are accepted only from the runner that claimed the attempt. Leases, reclaim, resume
 * and the dead-letter rules are the run queue's (Runs), not repeated here.
 */
export class RunnerDesk {
  readonly leaseMs: number;
  /** When the in-process runner last called: it has no token row to record it in. */
  private inProcessSeenAt: number | undefined;

  constructor(private readonly deps: RunnerDeskDeps) {
    this.leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /** The next attempt of the runner's pool; a run whose bot or credentials cannot be had is failed on the spot and the next one tried. */
  async claim(runner: RunnerIdentity): Promise<AttemptTicket | undefined> {
    this.seen(runner);
    const pool = runner.scope.pool;
    for (;;) {
      const claim = await this.deps.runs.claim(workerOf(runner), this.leaseMs, runner.scope, runner.id);
      if (!claim) {
        this.deps.metrics.runnerClaims.inc({ pool, result: "empty" });
        return undefined;
      }
      const { run, attempt } = claim;
      const log = this.deps.log.child({ runId: run.id, bot: run.bot_id, attempt, runner: runner.name });
      const bot = this.deps.bots.get(run.bot_id);
      if (!bot) {
        await this.deps.runs.finish(claim, { status: "failed", failureCode: "BOT_UNKNOWN", detail: `no bot ${run.bot_id} in ${this.deps.bots.file}` });
        this.deps.metrics.runnerClaims.inc({ pool, result: "failed" });
        continue;
      }
      const handed = await this.deps.credentials.handOver(run, attempt, bot.providers, bot.forgePermissions);
      if (handed.kind === "unavailable") {
        log.warn({ cause: handed.cause }, "run failed: its credentials are unavailable");
        await this.deps.runs.finish(claim, { status: "failed", failureCode: "CREDENTIAL_UNAVAILABLE", detail: handed.cause });
        this.deps.metrics.runnerClaims.inc({ pool, result: "failed" });
        continue;
      }
      this.deps.metrics.runnerClaims.inc({ pool, result: "claimed" });
      log.info("run claimed");
      return {
        runId: run.id,
        attempt,
        claimToken: claim.claimToken,
        leaseMs: this.leaseMs,
        bot,
        input: {
          runId: run.id,
          botId: run.bot_id,
          attempt,
          vars: claim.vars,
          repoUrl: run.repo_url,
          repoRef: run.repo_ref,
          projectPath: run.project_path,
          answer: run.answer,
        },
        credentials: handed.env,
      };
    }
  }

  /**
   * Extends the lease; `cancel` when the run was cancelled or taken away. `missed` counts the
   * runner's heartbeats that never reached the service, so they count as heartbeat errors too.
   */
  async heartbeat(runner: RunnerIdentity, runId: string, claimToken: string, missed = 0): Promise<{ held: boolean; cancel: boolean }> {
    this.seen(runner);
    const errors = this.deps.metrics.runnerHeartbeatErrors;
    if (missed > 0) errors.inc({ pool: runner.scope.pool }, missed);
    try {
      await this.attemptOf(runner, runId, claimToken);
      const beat = await this.deps.runs.heartbeat(runId, claimToken, this.leaseMs);
      return { held: beat.held, cancel: !beat.held || beat.cancelRequested };
    } catch (err) {
      if (!(err instanceof ServiceError)) errors.inc({ pool: runner.scope.pool });
      throw err;
    }
  }

  /** Appends output lines of an attempt the runner still runs; false when it no longer does. */
  async output(runner: RunnerIdentity, runId: string, claimToken: string, chunks: OutputChunk[]): Promise<{ held: boolean }> {
    this.seen(runner);
    const attempt = await this.attemptOf(runner, runId, claimToken);
    if (attempt.status !== "running") return { held: false };
    if (chunks.length > 0) await this.deps.output?.append(runId, attempt.number, chunks);
    return { held: true };
  }

  /** Ends the attempt with its outcome; its usage counts even when the claim was lost meanwhile (Runs.finish). */
  async finish(runner: RunnerIdentity, runId: string, claimToken: string, report: AttemptReport): Promise<{ finished: boolean }> {
    this.seen(runner);
    const attempt = await this.attemptOf(runner, runId, claimToken);
    const claim = { run: { id: runId }, claimToken, attempt: attempt.number };
    const result = await this.deps.runs.finish(claim, report.outcome, usageReports(attempt.number, report.usage));
    this.deps.log.info({ runId, attempt: attempt.number, runner: runner.name, status: report.outcome.status, finished: result.finished }, "attempt finished");
    return result;
  }

  /** Whether the in-process runner called within the lease window (it has no token to record it by). */
  inProcessConnected(now = this.deps.clock.now()): boolean {
    return this.inProcessSeenAt !== undefined && now - this.inProcessSeenAt <= this.leaseMs;
  }

  private seen(runner: RunnerIdentity): void {
    if (runner.id === null) this.inProcessSeenAt = this.deps.clock.now();
  }

  /** The attempt behind the claim token, if this runner claimed it; another runner's attempt is not found. */
  private async attemptOf(runner: RunnerIdentity, runId: string, claimToken: string) {
    const attempt = await findAttempt(this.deps.store.db, claimToken);
    if (!attempt || attempt.run_id !== runId || attempt.runner_id !== runner.id) throw notFound("attempt");
    return attempt;
  }
}

/** How a claim names its runner in the run's record: the runner's name, and its token's id when it has one. */
export function workerOf(runner: RunnerIdentity): string {
  return runner.id === null ? runner.name : `${runner.name} (${runner.id})`;
}

/** Attempt-scoped report ids: a bot that reuses its own ids on a resume still counts per attempt. */
export function usageReports(attempt: number, lines: BotUsageLine[]): UsageReport[] {
  return lines.map((u, i) => ({
    reportId: `${attempt}:${u.id ?? `line-${i}`}`,
    costMicro: u.costMicro,
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    aggregateTokens: u.aggregateTokens,
    fingerprint: u.fingerprint,
    provider: u.provider,
    tier: u.tier,
    repo: u.repo,
    amountType: u.amountType,
  }));
}
