import type { Logger } from "pino";
import type { Periodic } from "./core/periodic.js";
import type { Services } from "./http/services.js";
import type { Metrics } from "./metrics/metrics.js";

/**
 * Every periodic sweeper of the service, by the name its logs and metrics carry. Every replica
 * runs all of them: leases or conditional updates in the store keep replicas from doing one
 * row's work twice.
 */
export function sweeperCatalog(s: Services) {
  return {
    /** Synchronize launches parked for the debounce, launched once due. */
    parked_launches: s.parked.periodic,
    /** Cron schedules' due occurrences. */
    schedules: s.scheduler.periodic,
    /** Runs whose usage-window retry is due, resumed. */
    usage_window_retries: s.retries.periodic,
    /** Runs' commit statuses on the forge. */
    status_reports: s.statusReports.periodic,
    /** Bots' questions posted on the forge, and the answers read back. */
    question_replies: s.questionReplies.periodic,
    /** Attempts' output past its retention, forgotten. */
    run_log_retention: s.runLogs.periodic,
    /** Rotated webhooks' previous secrets, forgotten once their overlap has ended. */
    previous_webhook_secrets: s.previousSecrets.periodic,
    /** Deliveries' kept requests past their retention, forgotten. */
    kept_request_retention: s.keptRequests.periodic,
    /** Team boards' ready cards launched, and cards of ended runs moved on. */
    board_dispatch: s.boardDispatcher.periodic,
    /** Provisioned repositories' security-read tokens, renewed before they expire. */
    security_read_renewal: s.securityRead.periodic,
    /** Forge tokens no running attempt holds any more, revoked. */
    forge_token_revocation: s.tokenRevocations.periodic,
  } satisfies Record<string, Periodic>;
}

export type SweeperName = keyof ReturnType<typeof sweeperCatalog>;

/** The catalog's timers started together, each timed pass counted and a failed one logged under the sweeper's name. */
export class Sweepers<Name extends string = SweeperName> {
  private readonly entries: [Name, Periodic][];

  constructor(
    catalog: Record<Name, Periodic>,
    private readonly deps: { log: Pick<Logger, "warn">; metrics: Metrics },
  ) {
    this.entries = Object.entries(catalog) as [Name, Periodic][];
  }

  start(): this {
    for (const [sweeper, periodic] of this.entries) {
      periodic.start((outcome) => {
        this.deps.metrics.sweeperPasses.inc({ sweeper, result: outcome.ok ? "ok" : "failed" });
        if (!outcome.ok) this.deps.log.warn({ err: outcome.err, sweeper }, `${sweeper} sweep failed; retried at the next tick`);
      });
    }
    return this;
  }

  /** Stops every timer, each after its pass in progress. */
  async stop(): Promise<void> {
    for (const [, periodic] of this.entries) await periodic.stop();
  }
}
