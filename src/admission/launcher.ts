import type { Logger } from "pino";
import type { OrgLimitDefaults } from "../config/config.js";
import type { Clock } from "../core/clock.js";
import { ServiceError, conflict, notFound } from "../core/errors.js";
import type { IdGenerator } from "../core/ids.js";
import { monthOf } from "../core/month.js";
import type { Metrics } from "../metrics/metrics.js";
import { countActiveRuns, findLaunchBucket, loadTeamAndOrg, putLaunchBucket, type TeamAndOrg } from "../store/admission.js";
import * as runs from "../store/runs.js";
import type { Db, Store } from "../store/store.js";
import { findTeam } from "../store/tenancy.js";
import { addOrgRuns, findOrgUsage } from "../store/usage.js";
import { decideLaunch, snapshotNeeds, type LaunchDenial, type LaunchFacts, type LaunchSnapshot } from "./decide-launch.js";
import type { LaunchActor, LaunchOptions, LaunchRequest, LaunchResult } from "./launch-types.js";
import { newRunRow } from "./new-run-row.js";

export interface LauncherDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  metrics: Metrics;
  log: Logger;
  defaults: OrgLimitDefaults;
}

/** An error thrown by the caller's `within` hook: rethrown as is, never taken for a gate error. */
class HookError extends Error {
  constructor(readonly original: unknown) {
    super("launch hook failed");
  }
}

const NOT_RESUMABLE = "only a failed or failed_resumable run can be resumed";

/**
 * Writes the admitted run. `meterMonth` is set when the gate counts this attempt: a new run is
 * inserted already marked as counted (`counted`); a requeued one is marked by the gate after.
 */
type Admit = (tx: Db, orgId: string, now: number, meterMonth: string | null) => Promise<{ run: runs.RunRow; counted: boolean }>;

function limitsOf({ team, org }: TeamAndOrg) {
  return {
    org: { status: org.status, monthlyCostCapMicro: Number(org.monthly_cost_cap_micro), monthlyRunQuota: Number(org.monthly_run_quota) },
    team: { status: team.status, maxConcurrentRuns: Number(team.max_concurrent_runs), launchRatePerMin: Number(team.launch_rate_per_min) },
  };
}

/**
 * Every launch and resume: one transaction that locks the team and org rows, loads the
 * snapshot, asks {@link decideLaunch}, and only when admitted spends the bucket token, counts
 * the run (step 5) and writes the run. A store error fails open (Limits rule 4).
 */
export class Launcher {
  constructor(private readonly deps: LauncherDeps) {}

  async launch(request: LaunchRequest, options: LaunchOptions = {}): Promise<LaunchResult> {
    return this.admit(request.teamId, request.bypassGate === true, this.insertNew(request, this.deps.ids.next("run")), options);
  }

  /** Writes a new run under `id`. */
  private insertNew(request: LaunchRequest, id: string): Admit {
    return async (tx, orgId, now, meterMonth) => {
      const row = newRunRow(request, id, orgId, now, meterMonth);
      await runs.insertRun(tx, row);
      return { run: row, counted: meterMonth !== null };
    };
  }

  /** A new attempt of a failed or failed_resumable run, back on the queue; gated and metered like a launch. */
  async resume(runId: string, actor: LaunchActor, bypassGate: boolean, options: LaunchOptions = {}): Promise<LaunchResult> {
    const run = await runs.findRun(this.deps.store.db, runId);
    if (!run) throw notFound("run");
    // Answer "not resumable" before the gate, so a full quota does not hide it; re-checked under the lock.
    if (run.status !== "failed" && run.status !== "failed_resumable") throw conflict(NOT_RESUMABLE);
    const requeue: Admit = async (tx, _orgId, now) => {
      if (!(await runs.requeueRun(tx, runId, now, actor))) throw conflict(NOT_RESUMABLE);
      return { run: (await runs.findRun(tx, runId))!, counted: false };
    };
    return this.admit(run.team_id, bypassGate, requeue, options);
  }

  /**
   * A launch that failed after admission: hands its slot back (once, however often this is
   * called) and fails the run with LAUNCH_FAILED (Errors rule 2).
   */
  async failAfterAdmission(runId: string, cause: string): Promise<void> {
    const now = this.deps.clock.now();
    const failed = await this.deps.store.tx(async (tx) => {
      const released = await runs.releaseMetering(tx, runId);
      if (released) await addOrgRuns(tx, released.orgId, released.month, -1, now);
      return runs.failActiveRun(tx, runId, "LAUNCH_FAILED", cause, now);
    });
    if (failed) this.deps.metrics.runsFinished.inc({ status: "failed" });
  }

  private async admit(teamId: string, bypassGate: boolean, write: Admit, options: LaunchOptions): Promise<LaunchResult> {
    const { store, clock, metrics, log } = this.deps;
    const now = clock.now();
    const facts = { bypassGate };
    let stage: "check" | "meter" = "check";
    try {
      const result = await store.tx(async (tx): Promise<LaunchResult> => {
        // Rows are locked only when a limit will be checked; unlimited checks read nothing
        // (counting active runs grows with the queue).
        const found = await loadTeamAndOrg(tx, teamId, (f) => this.needsLocks(f, facts));
        if (!found) throw notFound("team");
        const { org } = found;
        const verdict = decideLaunch(await this.snapshot(tx, found, facts, now), facts, now);
        if (!verdict.admitted) return { kind: "denied", denial: verdict.denial };
        if (verdict.bucket) await putLaunchBucket(tx, teamId, verdict.bucket);
        const written = await write(tx, org.id, now, verdict.month);
        await this.runHook(options, tx, written.run);
        // Metering last: the org's usage row is what concurrent launches share, so its row
        // lock (PostgreSQL) is held only from here to the commit.
        stage = "meter";
        const counted = written.counted ? written.run : await this.markMetered(tx, written.run, verdict.month);
        if (counted) await addOrgRuns(tx, org.id, verdict.month, 1, now);
        stage = "check";
        return { kind: "launched", run: counted ?? written.run, metered: true };
      });
      if (result.kind === "denied") metrics.launchDenied.inc({ reason: result.denial.error });
      return result;
    } catch (err) {
      if (err instanceof HookError) throw err.original;
      if (err instanceof ServiceError) throw err;
      metrics.launchGateErrors.inc({ stage });
      log.error({ err, teamId, stage }, "launch gate store error; failing open, the launch proceeds unmetered");
      return this.admitUngated(teamId, write, options, now);
    }
  }

  /**
   * The gate's verdict on a launch of the team now, read without locks and written nowhere: the
   * per-request pre-check of a custom-event emit, whose launches each pass the gate after. A
   * store error passes (the gate fails open).
   */
  async precheck(teamId: string, bypassGate: boolean): Promise<LaunchDenial | undefined> {
    const { store, clock, log } = this.deps;
    const now = clock.now();
    const facts = { bypassGate };
    try {
      const found = await loadTeamAndOrg(store.db, teamId, () => false);
      if (!found) throw notFound("team");
      const verdict = decideLaunch(await this.snapshot(store.db, found, facts, now), facts, now);
      return verdict.admitted ? undefined : verdict.denial;
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      log.error({ err, teamId }, "launch pre-check store error; passing");
      return undefined;
    }
  }

  /** What the gate reads: only the parts a limit in force looks at. */
  private async snapshot(db: Db, found: TeamAndOrg, facts: LaunchFacts, now: number): Promise<LaunchSnapshot> {
    const { org: orgLimits, team: teamLimits } = limitsOf(found);
    const needs = snapshotNeeds(orgLimits, teamLimits, this.deps.defaults, facts);
    const teamId = found.team.id;
    return {
      org: orgLimits,
      team: teamLimits,
      defaults: this.deps.defaults,
      activeRuns: needs.activeRuns ? await countActiveRuns(db, teamId) : 0,
      bucket: needs.bucket ? await findLaunchBucket(db, teamId) : undefined,
      usage: needs.usage ? await findOrgUsage(db, found.org.id, monthOf(now)) : { runs: 0, costMicro: 0 },
    };
  }

  private needsLocks(found: TeamAndOrg, facts: LaunchFacts): boolean {
    const l = limitsOf(found);
    return Object.values(snapshotNeeds(l.org, l.team, this.deps.defaults, facts)).some(Boolean);
  }

  /** The attempt marked as counted, or undefined when it already was (counted once per attempt). */
  private async markMetered(tx: Db, run: runs.RunRow, month: string): Promise<runs.RunRow | undefined> {
    if (!(await runs.markAttemptMetered(tx, run.id, month))) return undefined;
    return { ...run, metered_attempt: run.attempt, metered: 1, metered_month: month };
  }

  /** Fail-open path: the run is written without the gate's checks and without counting it. */
  private async admitUngated(teamId: string, write: Admit, options: LaunchOptions, now: number): Promise<LaunchResult> {
    try {
      return await this.deps.store.tx(async (tx): Promise<LaunchResult> => {
        const team = await findTeam(tx, teamId);
        if (!team) throw notFound("team");
        const { run } = await write(tx, team.org_id, now, null);
        await this.runHook(options, tx, run);
        return { kind: "launched", run, metered: false } as const;
      });
    } catch (err) {
      throw err instanceof HookError ? err.original : err;
    }
  }

  /** The caller's part of the launch transaction (`within`). */
  private async runHook(options: LaunchOptions, tx: Db, run: runs.RunRow): Promise<void> {
    try {
      if (options.within) await options.within(tx, run);
    } catch (err) {
      throw new HookError(err);
    }
  }
}
