import type { Logger } from "pino";
import type { Launcher } from "../admission/launcher.js";
import type { Clock } from "../core/clock.js";
import { ServiceError } from "../core/errors.js";
import { Periodic } from "../core/periodic.js";
import type { Metrics } from "../metrics/metrics.js";
import { armRetry, countDeadLetters, deadLetter, dueRetries, takeRetry } from "../store/run-retries.js";
import type { RunRow } from "../store/runs.js";
import type { Store } from "../store/store.js";

/** How often every replica looks for due retries. */
const SWEEP_EVERY_MS = 30_000;
/** Due retries resumed per pass at most. */
const SWEEP_BATCH = 100;

export type RetryResult = "enqueued" | "abandoned" | "failed";

/**
 * Resumes failed_resumable runs whose usage-window retry is due, through the gate, under the
 * run's owner with the `retry-sweeper` kind. Across replicas each armed retry is taken once: the
 * resume's own transaction clears it only if it is still armed. Outcomes: `enqueued`;
 * `abandoned` when the gate refuses for the month or the org (402, 403: the run is parked on the
 * dead-letter queue) or the run is no longer resumable; `failed` when the store errs (the retry
 * stays armed for the next pass). A denial that passes with time (429) re-arms it after the
 * denial's Retry-After.
 */
export class RetrySweeper {
  /** Its timer: the sweepers' catalog (src/sweepers.ts) names, starts and stops it. */
  readonly periodic: Periodic;

  constructor(private readonly deps: { store: Store; clock: Clock; launcher: Launcher; metrics: Metrics; log: Logger }) {
    this.periodic = new Periodic(SWEEP_EVERY_MS, () => this.sweepOnce());
  }

  /** One pass now: each due retry's result. */
  sweep(): Promise<Map<string, RetryResult | "taken" | "rearmed">> {
    return this.periodic.run() as Promise<Map<string, RetryResult | "taken" | "rearmed">>;
  }

  private async sweepOnce() {
    const { store, clock, metrics } = this.deps;
    const due = await dueRetries(store.db, clock.now(), SWEEP_BATCH);
    metrics.retrySweeps.inc();
    metrics.retryPending.set(due.length);
    const results = new Map<string, RetryResult | "taken" | "rearmed">();
    for (const run of due) {
      const result = await this.resume(run);
      results.set(run.id, result);
      if (result !== "taken" && result !== "rearmed") metrics.retryResumed.inc({ result });
    }
    metrics.dlqDepth.set(await countDeadLetters(store.db));
    return results;
  }

  private async resume(run: RunRow): Promise<RetryResult | "taken" | "rearmed"> {
    const { store, clock, launcher, log } = this.deps;
    const due = run.retry_at!;
    try {
      // Another replica took this retry, or a closed pull request disarmed it: `taken`.
      const result = await launcher.resume(run.id, { userId: run.actor_user_id, kind: "retry-sweeper" }, false, { record: { retry: { due } } });
      if (result.kind === "launched") return "enqueued";
      if (result.kind === "taken") return "taken";
      const { denial } = result;
      if (denial.status === 429) {
        await store.tx((tx) => armRetry(tx, run.id, clock.now() + (denial.retryAfter ?? 60) * 1000));
        return "rearmed";
      }
      await store.tx((tx) => deadLetter(tx, run.id, `retry refused by the launch gate: ${denial.error}`, clock.now()));
      return "abandoned";
    } catch (err) {
      if (err instanceof ServiceError) {
        // Not resumable any more: resumed by another replica (its retry taken), or by hand, cancelled or deleted.
        return (await store.tx((tx) => takeRetry(tx, run.id, due))) ? "abandoned" : "taken";
      }
      log.warn({ err, runId: run.id }, "retry resume failed; the retry stays armed for the next pass");
      return "failed";
    }
  }
}
