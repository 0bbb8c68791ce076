import { performance } from "node:perf_hooks";

/** GitHub gives up on a delivery after 10 s; 4 s of forge calls leaves the rest for the lane's own work. */
export const DEFAULT_LANE_DEADLINE_MS = 4_000;
/** One slow call must leave time for another in the same lane. */
export const DEFAULT_CALL_TIMEOUT_MS = 2_500;
/** A retry is worth waiting for only if this much time is left after the wait. */
const MIN_CALL_WINDOW_MS = 250;
/** Retries of one call, whoever asks (the fetch or octokit's plugins). */
const MAX_RETRIES = 1;

/**
 * The time one lane may spend on a forge: an overall deadline, as a signal every call
 * listens to. Measured on the monotonic clock: it is elapsed time, not a date.
 */
export class LaneBudget {
  readonly signal: AbortSignal;
  private readonly endsAt: number;

  constructor(deadlineMs: number, outer?: AbortSignal) {
    this.endsAt = performance.now() + deadlineMs;
    const deadline = AbortSignal.timeout(Math.max(1, Math.ceil(deadlineMs)));
    this.signal = outer ? AbortSignal.any([deadline, outer]) : deadline;
  }

  remainingMs(): number {
    return Math.max(0, this.endsAt - performance.now());
  }

  expired(): boolean {
    return this.signal.aborted || this.remainingMs() === 0;
  }

  /** Whether the `retriesSoFar + 1`th retry, after waiting `waitMs`, still ends before the deadline. */
  mayRetry(waitMs: number, retriesSoFar: number): boolean {
    return retriesSoFar < MAX_RETRIES && waitMs + MIN_CALL_WINDOW_MS <= this.remainingMs();
  }

  /** A signal for one HTTP request: the deadline, or the per-call timeout if it comes first. */
  callSignal(callTimeoutMs: number): AbortSignal {
    return AbortSignal.any([this.signal, AbortSignal.timeout(Math.max(1, Math.ceil(Math.min(callTimeoutMs, this.remainingMs()))))]);
  }
}
