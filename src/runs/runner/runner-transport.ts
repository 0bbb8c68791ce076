import type { RunOutcome } from "../runs.js";
import type { BotCommand } from "./bot-commands.js";
import type { OutputChunk } from "./bot-output.js";
import type { BotInput } from "./run-bot-command.js";
import type { BotUsageLine } from "./usage-line.js";

/** One attempt a runner claimed: the bot to run, its input and exactly that attempt's handed credentials. */
export interface AttemptTicket {
  runId: string;
  attempt: number;
  /** Proves the claim on every later call (the attempt's id). */
  claimToken: string;
  /** The claim lapses this long after the last heartbeat. */
  leaseMs: number;
  /** The command to execute; `cwd` is where the runner resolves it (its own bots folder). */
  bot: BotCommand;
  input: BotInput;
  /** The attempt's keys and secrets, as environment variables. */
  credentials: Record<string, string>;
  /** The trace context of the claim that took it (traced runners): the attempt's span is its child. */
  trace?: Record<string, string>;
}

/** What ends an attempt: its outcome and the usage lines its bot printed. */
export interface AttemptReport {
  outcome: RunOutcome;
  usage: BotUsageLine[];
}

/**
 * How the runner loop reaches the service: in the same process (the embedded mode) or over the
 * runner protocol (`/api/runner/v1`). Both end at the service's RunnerDesk.
 */
export interface RunnerTransport {
  /** The next attempt of the runner's pool, or undefined when there is none (now, or after a long-poll). */
  claim(signal: AbortSignal): Promise<AttemptTicket | undefined>;
  /** Extends the lease; `held: false` means the run was taken away, `cancel` that a person cancelled it. */
  heartbeat(ticket: AttemptTicket): Promise<{ held: boolean; cancel: boolean }>;
  /** Appends the bot's own output lines (credentials already masked). */
  output(ticket: AttemptTicket, chunks: OutputChunk[]): Promise<void>;
  finish(ticket: AttemptTicket, report: AttemptReport): Promise<{ finished: boolean }>;
}

/** The service refused the runner's token (unknown, revoked or rotated): the runner must stop. */
export class RunnerTokenRefused extends Error {
  constructor(message = "the service refused this runner's token: it is unknown, revoked or was rotated") {
    super(message);
    this.name = "RunnerTokenRefused";
  }
}
