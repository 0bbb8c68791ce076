import type { Logger } from "pino";
import type { Launcher } from "../admission/launcher.js";
import type { Clock } from "../core/clock.js";
import { ServiceError } from "../core/errors.js";
import { Periodic } from "../core/periodic.js";
import { advanceSchedule, dueSchedules, type ScheduleRow } from "../store/schedules.js";
import type { Store } from "../store/store.js";
import { nextOccurrence } from "./next-occurrence.js";

/** How often every replica looks for due occurrences: cron's precision is the minute. */
const SWEEP_EVERY_MS = 15_000;
/** Due schedules launched per pass at most; the rest wait for the next pass. */
const SWEEP_BATCH = 100;

/**
 * Launches each due occurrence of the enabled schedules, once across replicas: the launch's own
 * transaction moves the schedule past the occurrence only if no one moved it first, else the
 * launch rolls back. A refusal (the gate's denial, a team or bot gone) is recorded as the
 * schedule's last_error and the occurrence is skipped; the next launch clears it. Occurrences
 * missed while nothing ran collapse into one catch-up launch (the next occurrence is taken
 * from now).
 */
export class Scheduler {
  /** Its timer: the sweepers' catalog (src/sweepers.ts) names, starts and stops it. */
  readonly periodic: Periodic;

  constructor(private readonly deps: { store: Store; clock: Clock; launcher: Launcher; log: Logger }) {
    this.periodic = new Periodic(SWEEP_EVERY_MS, () => this.sweepOnce());
  }

  /** Launches what is due now; how many occurrences this pass launched. */
  sweep(): Promise<number> {
    return this.periodic.run() as Promise<number>;
  }

  private async sweepOnce(): Promise<number> {
    let launched = 0;
    for (const schedule of await dueSchedules(this.deps.store.db, this.deps.clock.now(), SWEEP_BATCH)) {
      if (await this.fire(schedule).catch((err: unknown) => this.leave(schedule, err))) launched++;
    }
    return launched;
  }

  /** One occurrence: true when this replica launched it. */
  private async fire(s: ScheduleRow): Promise<boolean> {
    const { clock, launcher, store } = this.deps;
    const now = clock.now();
    const due = s.next_run_at!;
    const next = nextOccurrence(s.cron, s.timezone, now);
    let refusal: string;
    try {
      const result = await launcher.launch(
        {
          teamId: s.team_id,
          botId: s.bot_id,
          vars: { ...(JSON.parse(s.vars) as Record<string, string>), schedule_id: s.id, scheduled_at: new Date(due).toISOString() },
          repoUrl: s.repo_url,
          repoRef: s.repo_ref,
          projectPath: s.project_path,
          source: "schedule",
          actor: { userId: null, kind: "cloud-scheduler" },
        },
        // Another replica launched (or an edit moved) this occurrence first: `taken`.
        { record: { schedule: { id: s.id, due, next } } },
      );
      if (result.kind === "launched" || result.kind === "taken") return result.kind === "launched";
      refusal = `${result.denial.error}: ${result.denial.detail}`;
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      refusal = err.message;
    }
    await store.tx((tx) => advanceSchedule(tx, s.id, due, next, { last_error: refusal, last_error_at: now }));
    return false;
  }

  /** A store error: the occurrence stays due and the next pass tries it again. */
  private leave(s: ScheduleRow, err: unknown): false {
    this.deps.log.warn({ err, scheduleId: s.id }, "scheduled launch failed; retried at the next pass");
    return false;
  }
}
