import type { Logger } from "pino";
import type { RunCredentials } from "../../credentials/run-credentials.js";
import type { UsageReport } from "../../metering/metering.js";
import type { Metrics } from "../../metrics/metrics.js";
import type { ClaimedRun, RunOutcome, Runs } from "../runs.js";
import type { BotCommands } from "./bot-commands.js";
import type { AttemptOutputStore } from "./bot-output.js";
import { outputBuffer } from "./output-buffer.js";
import { runBotCommand, type BotExit } from "./run-bot-command.js";

export interface RunnerOptions {
  runs: Runs;
  bots: BotCommands;
  /** Hands each attempt its keys and secrets at spawn. */
  credentials: Pick<RunCredentials, "handOver">;
  /** Where each attempt's output goes; without one it is let go. */
  output?: AttemptOutputStore;
  metrics: Metrics;
  log: Logger;
  /** Names this runner in claims and logs. */
  worker: string;
  concurrency: number;
  /** A claim lapses this long after the last heartbeat; the reclaim then frees its slot. */
  leaseMs?: number;
  heartbeatMs?: number;
  /** How often an idle runner looks for queued runs. */
  pollMs?: number;
}

/** Exit code that asks for a resumable failure (EX_TEMPFAIL from sysexits.h). */
export const EXIT_RESUMABLE = 75;

interface ActiveRun {
  claim: ClaimedRun;
  controller: AbortController;
  stopReason?: "cancel" | "lost" | "shutdown";
  done: Promise<void>;
}

/**
 * The reference runner: claims queued runs up to its concurrency, executes each bot's command,
 * heartbeats while it runs (a cancel arrives in the heartbeat answer), and finishes each attempt
 * with the usage the bot reported.
 */
export class Runner {
  private readonly active = new Map<string, ActiveRun>();
  private pollTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private ticking: Promise<number> | undefined;
  private readonly leaseMs: number;

  constructor(private readonly o: RunnerOptions) {
    this.leaseMs = o.leaseMs ?? 60_000;
  }

  start(): void {
    this.pollTimer = setInterval(() => void this.tick(), this.o.pollMs ?? 1000);
    this.heartbeatTimer = setInterval(() => void this.heartbeatAll(), this.o.heartbeatMs ?? 10_000);
    void this.tick();
  }

  /** Stops claiming; running bots are stopped and their runs left failed_resumable for a resume. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.pollTimer);
    clearInterval(this.heartbeatTimer);
    await this.ticking;
    for (const a of this.active.values()) {
      a.stopReason ??= "shutdown";
      a.controller.abort();
    }
    await this.idle();
  }

  /** Claims queued runs into free slots and starts them; returns how many started. */
  tick(): Promise<number> {
    this.ticking ??= this.fill().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  /** Resolves when no run is executing. */
  async idle(): Promise<void> {
    while (this.active.size > 0) await Promise.all([...this.active.values()].map((a) => a.done));
  }

  /** Extends every held lease now; stops runs that were cancelled or taken away. */
  async heartbeatAll(): Promise<void> {
    await Promise.all(
      [...this.active.values()].map(async (a) => {
        try {
          const beat = await this.o.runs.heartbeat(a.claim.run.id, a.claim.claimToken, this.leaseMs);
          if (!beat.held || beat.cancelRequested) {
            a.stopReason ??= beat.held ? "cancel" : "lost";
            a.controller.abort();
          }
        } catch (err) {
          this.o.metrics.runnerHeartbeatErrors.inc();
          this.o.log.warn({ err, runId: a.claim.run.id }, "runner heartbeat failed");
        }
      }),
    );
  }

  private async fill(): Promise<number> {
    let started = 0;
    while (!this.stopping && this.active.size < this.o.concurrency) {
      let claim: ClaimedRun | undefined;
      try {
        claim = await this.o.runs.claim(this.o.worker, this.leaseMs);
      } catch (err) {
        this.o.log.warn({ err }, "runner could not claim a run");
        return started;
      }
      if (!claim) return started;
      this.begin(claim);
      started++;
    }
    return started;
  }

  private begin(claim: ClaimedRun): void {
    const entry = { claim, controller: new AbortController() } as ActiveRun;
    entry.done = this.execute(entry).finally(() => {
      this.active.delete(claim.run.id);
      if (!this.stopping) void this.tick();
    });
    this.active.set(claim.run.id, entry);
  }

  private async execute(a: ActiveRun): Promise<void> {
    const { run, attempt } = a.claim;
    const log = this.o.log.child({ runId: run.id, bot: run.bot_id, attempt });
    try {
      const bot = this.o.bots.get(run.bot_id);
      if (!bot) {
        await this.o.runs.finish(a.claim, { status: "failed", failureCode: "BOT_UNKNOWN", detail: `no bot ${run.bot_id} in ${this.o.bots.file}` });
        return;
      }
      const handed = await this.o.credentials.handOver(run, attempt, bot.providers);
      if (handed.kind === "unavailable") {
        log.warn({ cause: handed.cause }, "run failed: its credentials are unavailable");
        await this.o.runs.finish(a.claim, { status: "failed", failureCode: "CREDENTIAL_UNAVAILABLE", detail: handed.cause });
        return;
      }
      log.info("run started");
      const output = outputBuffer(
        async (chunks) => this.o.output?.append(run.id, attempt, chunks),
        (err) => log.warn({ err }, "output lines could not be kept"),
      );
      const exit = await runBotCommand(
        bot,
        { runId: run.id, botId: run.bot_id, attempt, vars: a.claim.vars, repoUrl: run.repo_url, repoRef: run.repo_ref, projectPath: run.project_path },
        a.controller.signal,
        handed.env,
        output.sink,
      );
      await output.drain();
      const outcome = outcomeOf(exit, a.stopReason);
      const usage: UsageReport[] = exit.usage.map((u, i) => ({
        // Attempt-scoped ids: a bot that reuses its own ids on a resume still counts per attempt.
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
      const { finished } = await this.o.runs.finish(a.claim, outcome, usage);
      log.info({ status: outcome.status, finished, ...(exit.kind !== "exited" || exit.code !== 0 ? { stderr: exit.stderrTail } : {}) }, "run ended");
    } catch (err) {
      log.error({ err }, "runner could not finish the run; the lease will lapse and the run becomes failed_resumable");
    }
  }
}

export function outcomeOf(exit: BotExit, stopReason: ActiveRun["stopReason"]): RunOutcome {
  switch (exit.kind) {
    case "exited":
      if (exit.code === 0) return { status: "succeeded" };
      if (exit.usageWindow) {
        const { provider, resetAt } = exit.usageWindow;
        const detail = `${provider} usage window exhausted until ${new Date(resetAt).toISOString()}`;
        return { status: "failed_resumable", failureCode: "USAGE_WINDOW", detail, usageWindow: exit.usageWindow };
      }
      if (exit.code === EXIT_RESUMABLE) return { status: "failed_resumable", failureCode: "BOT_TEMPFAIL", detail: `exit code ${exit.code}` };
      return { status: "failed", failureCode: "BOT_FAILED", detail: `exit code ${exit.code}` };
    case "timed_out":
      return { status: "failed", failureCode: "TIMEOUT", detail: "the bot ran past its timeout and was killed" };
    case "spawn_failed":
      return { status: "failed", failureCode: "BOT_START_FAILED", detail: `the bot could not start: ${exit.message}` };
    case "aborted":
      if (stopReason === "cancel") return { status: "cancelled" };
      return { status: "failed_resumable", failureCode: "RUNNER_STOPPED", detail: "the runner stopped before the bot finished" };
    default: {
      const never: never = exit;
      return never;
    }
  }
}
