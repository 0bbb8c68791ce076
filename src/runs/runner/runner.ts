import type { Logger } from "pino";
import { traced, type TraceSpan } from "../../core/tracing.js";
import type { RunOutcome } from "../runs.js";
import { outputBuffer } from "./output-buffer.js";
import { runBotCommand, type BotExit } from "./run-bot-command.js";
import type { Sandbox } from "./sandbox.js";
import { RunnerTokenRefused, type AttemptTicket, type RunnerTransport } from "./runner-transport.js";

export interface RunnerOptions {
  /** How the runner reaches the service: in-process, or the runner protocol over HTTP. */
  transport: RunnerTransport;
  log: Logger;
  concurrency: number;
  /** How each attempt's bot is isolated (sandbox.ts). */
  sandbox: Sandbox;
  heartbeatMs?: number;
  /** How often an idle runner looks for queued runs (a long-polling transport waits inside the claim). */
  pollMs?: number;
  /** Told once when the service refuses the runner's token; the runner has stopped its bots by then. */
  onTokenRefused?: (err: RunnerTokenRefused) => void;
}

/** Exit code that asks for a resumable failure (EX_TEMPFAIL from sysexits.h). */
export const EXIT_RESUMABLE = 75;

interface ActiveRun {
  ticket: AttemptTicket;
  controller: AbortController;
  stopReason?: "cancel" | "lost" | "shutdown";
  output: ReturnType<typeof outputBuffer>;
  done: Promise<void>;
}

/**
 * The one runner, in `npm start` and in `npm run runner` alike: claims attempts up to its
 * concurrency through its transport, executes each bot's command, heartbeats while it runs (a
 * cancel arrives in the heartbeat answer), sends the bot's output and finishes each attempt with
 * the usage the bot reported.
 */
export class Runner {
  private readonly active = new Map<string, ActiveRun>();
  private pollTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private refused = false;
  private ticking: Promise<number> | undefined;
  private readonly claims = new AbortController();
  private beatEvery: number;
  /** After failed claims, none is tried before this (ms since the epoch): 1 s, doubling to 30 s. */
  private claimPausedUntil = 0;
  private claimFailures = 0;
  private started = false;

  constructor(private readonly o: RunnerOptions) {
    this.beatEvery = o.heartbeatMs ?? 10_000;
  }

  start(): void {
    this.started = true;
    this.pollTimer = setInterval(() => void this.tick(), this.o.pollMs ?? 1000);
    this.heartbeatTimer = setInterval(() => void this.heartbeatAll(), this.beatEvery);
    void this.tick();
  }

  /** Stops claiming; running bots are stopped and their runs left failed_resumable for a resume. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.pollTimer);
    clearInterval(this.heartbeatTimer);
    this.claims.abort();
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
          const beat = await this.o.transport.heartbeat(a.ticket);
          if (!beat.held || beat.cancel) {
            a.stopReason ??= beat.held ? "cancel" : "lost";
            a.controller.abort();
          }
        } catch (err) {
          if (this.refusedBy(err)) return;
          this.o.log.warn({ err, runId: a.ticket.runId }, "runner heartbeat failed");
        }
      }),
    );
  }

  private async fill(): Promise<number> {
    let started = 0;
    while (!this.stopping && this.active.size < this.o.concurrency) {
      let ticket: AttemptTicket | undefined;
      if (Date.now() < this.claimPausedUntil) return started;
      try {
        ticket = await this.o.transport.claim(this.claims.signal);
        this.claimFailures = 0;
      } catch (err) {
        if (!this.refusedBy(err) && !this.stopping) {
          this.claimFailures++;
          this.claimPausedUntil = Date.now() + Math.min(30_000, 1000 * 2 ** (this.claimFailures - 1));
          this.o.log.warn({ err, failures: this.claimFailures }, "runner could not claim a run");
        }
        return started;
      }
      if (!ticket) return started;
      this.begin(ticket);
      started++;
    }
    return started;
  }

  private begin(ticket: AttemptTicket): void {
    // Four heartbeats a lease at least, so one lost heartbeat never loses the run.
    const every = Math.max(500, Math.floor(ticket.leaseMs / 4));
    if (every < this.beatEvery) {
      this.beatEvery = every;
      if (this.started && !this.stopping) {
        clearInterval(this.heartbeatTimer);
        this.heartbeatTimer = setInterval(() => void this.heartbeatAll(), every);
      }
    }
    const entry = { ticket, controller: new AbortController() } as ActiveRun;
    entry.output = outputBuffer(
      (chunks) => this.o.transport.output(ticket, chunks),
      (err) => {
        if (!this.refusedBy(err)) this.o.log.warn({ err, runId: ticket.runId }, "output lines could not be kept");
      },
    );
    entry.done = this.execute(entry).finally(() => {
      this.active.delete(ticket.runId);
      if (!this.stopping) void this.tick();
    });
    this.active.set(ticket.runId, entry);
  }

  /**
   * One attempt, traced as `runner.attempt` (a child of the claim that took it, when the
   * transport traced one): the run's and the attempt's ids, the bot, and how it ended; its
   * output and finish calls are its children. Never a variable, a credential or a line of output.
   */
  private execute(a: ActiveRun): Promise<void> {
    const { runId, attempt } = a.ticket;
    const attributes = { "run.id": runId, "run.attempt": attempt, "bot.id": a.ticket.bot.id };
    return traced("runner.attempt", attributes, (span) => this.attempt(a, span), "internal", a.ticket.trace);
  }

  private async attempt(a: ActiveRun, span: TraceSpan): Promise<void> {
    const { runId, attempt } = a.ticket;
    const log = this.o.log.child({ runId, bot: a.ticket.bot.id, attempt });
    try {
      log.info("run started");
      const exit = await runBotCommand(a.ticket.bot, a.ticket.input, a.controller.signal, this.o.sandbox, a.ticket.credentials, a.output.sink);
      await a.output.drain();
      const outcome = { ...outcomeOf(exit, a.stopReason), ...(exit.summary && { summary: exit.summary }) };
      span.set({
        "run.status": outcome.status,
        "run.failure_code": outcome.status === "succeeded" || outcome.status === "cancelled" ? undefined : outcome.failureCode,
      });
      const { finished } = await this.o.transport.finish(a.ticket, { outcome, usage: exit.usage });
      span.set({ "runner.finished": finished });
      log.info({ status: outcome.status, finished, ...(exit.kind !== "exited" || exit.code !== 0 ? { stderr: exit.stderrTail } : {}) }, "run ended");
    } catch (err) {
      span.fail(err instanceof Error ? err.name : "finish failed");
      if (this.refusedBy(err)) return;
      log.error({ err }, "runner could not finish the run; the lease will lapse and the run becomes failed_resumable");
    }
  }

  /** A refused token stops the runner once: its bots are stopped, their leases lapse (RUNNER_LOST). */
  private refusedBy(err: unknown): boolean {
    if (!(err instanceof RunnerTokenRefused)) return false;
    if (!this.refused) {
      this.refused = true;
      this.o.log.error(err.message);
      void this.stop().then(() => this.o.onTokenRefused?.(err));
    }
    return true;
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
      if (exit.code === EXIT_RESUMABLE && exit.question)
        return { status: "failed_resumable", failureCode: "QUESTION", detail: exit.question.text, question: exit.question };
      if (exit.code === EXIT_RESUMABLE) return { status: "failed_resumable", failureCode: "BOT_TEMPFAIL", detail: `exit code ${exit.code}` };
      if (exit.limitHit) return { status: "failed", failureCode: "RESOURCE_LIMIT", detail: exit.limitHit };
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
