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
import { findActiveRunsOfSubject } from "../store/active-runs.js";
import { isUniqueViolation } from "../store/errors.js";
import { isDeliveryRecord, launchedColumns, writeLaunchRecord, type DeliveryRecord, type LaunchRecord } from "../store/launch-record.js";
import { decideLaunch, noLimitApplies, snapshotNeeds, type LaunchDenial, type LaunchFacts, type LaunchSnapshot } from "./decide-launch.js";
import { deniedRecord, keepRecord, keyFree, lostRace, Overlapping, RecordError, recordsDenial, type Gated } from "./launch-record-steps.js";
import type {
  LaunchActor,
  LaunchRequest,
  LaunchResult,
  OverlapGuard,
  RecordedLaunchOptions,
  RecordedLaunchResult,
  ResumeOptions,
  SurfaceLaunchOptions,
  SurfaceLaunchResult,
} from "./launch-types.js";
import { newRunRow } from "./new-run-row.js";

export interface LauncherDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  metrics: Metrics;
  log: Logger;
  defaults: OrgLimitDefaults;
}

/** The ledger's one commit of a delivery's launch: its answer, or the gate's turn (`gate`), or `failed` before any write. */
type AtOnce = RecordedLaunchResult | { kind: "gate" } | { kind: "failed" };

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
  /** Whether the platform's defaults leave a team without limits possible: the ledger's one commit is worth trying. */
  private readonly oneCommit: boolean;

  constructor(private readonly deps: LauncherDeps) {
    const unlimited = { status: "active", monthlyCostCapMicro: 0, monthlyRunQuota: 0, maxConcurrentRuns: 0, launchRatePerMin: 0 } as const;
    this.oneCommit = noLimitApplies(unlimited, unlimited, deps.defaults);
  }

  /**
   * The only door a run comes in by. What the caller writes with the run is a `record` (data,
   * never a callback) the store writes in the launch's own commit: the ledger's one commit when
   * no limit applies to a delivery's team, else the gate's transaction. A lost race answers
   * `taken` and writes nothing.
   */
  launch(request: LaunchRequest): Promise<LaunchResult>;
  launch(request: LaunchRequest, options: SurfaceLaunchOptions): Promise<SurfaceLaunchResult>;
  launch(request: LaunchRequest, options: RecordedLaunchOptions): Promise<RecordedLaunchResult>;
  async launch(request: LaunchRequest, options?: SurfaceLaunchOptions | RecordedLaunchOptions): Promise<RecordedLaunchResult> {
    const bypassGate = request.bypassGate === true;
    const id = this.deps.ids.next("run");
    const record = options?.record;
    const overlap = options && "overlap" in options ? options.overlap : undefined;
    const insert = this.insertRecorded(request, id, record, overlap);
    if (!record) return this.admit(request.teamId, bypassGate, insert);
    const gated = isDeliveryRecord(record) ? await this.deliveryGate(request, id, record, overlap) : {};
    if ("kind" in gated) return gated;
    try {
      return await this.admit(request.teamId, bypassGate, insert, gated);
    } catch (err) {
      if (err instanceof Overlapping) return { kind: "overlapping", active: err.active };
      return lostRace(err);
    }
  }

  /**
   * A delivery's part of the gate's transaction (its team's lock under `overlap`, its denial's
   * write, its key's check when not done yet), or its answer before the gate.
   */
  private async deliveryGate(
    request: LaunchRequest,
    id: string,
    record: DeliveryRecord,
    overlap: OverlapGuard | undefined,
  ): Promise<RecordedLaunchResult | Gated> {
    const gated: Gated = { lock: overlap !== undefined, denied: recordsDenial(record) ? deniedRecord(record) : undefined };
    if (!("insert" in record)) return gated;
    const before = await this.beforeGate(request, id, record, overlap);
    if (before.kind !== "gate") return before;
    return before.keyChecked ? gated : { ...gated, keyFree: keyFree(record) };
  }

  /**
   * A new row's admission, before the gate: in the ledger's one commit with the launch and its
   * key check when it can be, else on its own. Its answer, or `gate` when the gate is to write it
   * (`keyChecked` when the ledger found the key free).
   */
  private async beforeGate(
    request: LaunchRequest,
    id: string,
    record: Extract<DeliveryRecord, { insert: unknown }>,
    overlap: OverlapGuard | undefined,
  ): Promise<RecordedLaunchResult | { kind: "gate"; keyChecked: boolean }> {
    if (this.oneCommit && request.bypassGate !== true && !overlap) {
      const answer = await this.commitAtOnce(request, id, record);
      if (answer.kind === "failed") return { kind: "gate", keyChecked: false };
      return answer.kind === "gate" ? { kind: "gate", keyChecked: true } : answer;
    }
    if (record.admission) {
      const admitted = await this.deps.store.ledger.admit(record.admission);
      if (admitted.kind !== "admitted") return { kind: "refused", refusal: admitted };
    }
    return { kind: "gate", keyChecked: false };
  }

  /** The run, the record, and the call's admission in one ledger commit; `gate` when a limit or a status needs the gate. */
  private async commitAtOnce(request: LaunchRequest, id: string, record: Extract<DeliveryRecord, { insert: unknown }>): Promise<AtOnce> {
    const { store, clock, log } = this.deps;
    const now = clock.now();
    const month = monthOf(now);
    // The store sets the run's org from the team.
    const run = newRunRow(request, id, "", now, month);
    const row = Object.assign(record.insert, launchedColumns(id, now));
    try {
      const answer = await store.ledger.commit({ admission: record.admission, row, launch: { teamId: request.teamId, run, month }, replayOf: record.replayOf });
      if (answer.kind === "launched") return { kind: "launched", run: { ...run, org_id: answer.orgId }, metered: true };
      if (answer.kind === "refused" || answer.kind === "taken" || answer.kind === "gate") return answer;
      throw new Error(`the ledger answered ${answer.kind} to a launch`);
    } catch (err) {
      if (isUniqueViolation(err)) return { kind: "taken", holder: undefined, recorded: false };
      // With the admission in the same commit, whether it committed is not known: no fallback.
      if (record.admission) throw err;
      log.warn({ err, teamId: request.teamId }, "one-commit launch failed; taking the gate's transaction");
      return { kind: "failed" };
    }
  }

  /**
   * A new run under `id` and its record (when any) in the gate's transaction; under `overlap`,
   * only when nothing overlapping is in flight. A run is inserted here or in the ledger's one
   * commit, nowhere else.
   */
  private insertRecorded(request: LaunchRequest, id: string, record: LaunchRecord | undefined, overlap: OverlapGuard | undefined): Admit {
    return async (tx, orgId, now, meterMonth) => {
      if (overlap) {
        const match = { teamId: request.teamId, webhookId: overlap.webhookId, subjectId: overlap.subjectId, botId: overlap.botId };
        const active = (await findActiveRunsOfSubject(tx, match)).filter((r) => r.idempotencyKey !== overlap.key);
        if (active.length > 0) throw new RecordError(new Overlapping(active));
      }
      const row = newRunRow(request, id, orgId, now, meterMonth);
      await runs.insertRun(tx, row);
      if (record) await keepRecord(() => writeLaunchRecord(tx, record, id, now));
      return { run: row, counted: meterMonth !== null };
    };
  }

  /**
   * A new attempt of a failed or failed_resumable run, back on the queue; gated and metered like
   * a launch. With a `record` (a retry taken, an answer kept), written with the requeued run; a
   * lost race answers `taken`.
   */
  async resume(runId: string, actor: LaunchActor, bypassGate: boolean): Promise<LaunchResult>;
  async resume(runId: string, actor: LaunchActor, bypassGate: boolean, options: ResumeOptions): Promise<SurfaceLaunchResult>;
  async resume(runId: string, actor: LaunchActor, bypassGate: boolean, options?: ResumeOptions): Promise<SurfaceLaunchResult> {
    const run = await runs.findRun(this.deps.store.db, runId);
    if (!run) throw notFound("run");
    // Answer "not resumable" before the gate, so a full quota does not hide it; re-checked under the lock.
    if (run.status !== "failed" && run.status !== "failed_resumable") throw conflict(NOT_RESUMABLE);
    const record = options?.record;
    const requeue: Admit = async (tx, _orgId, now) => {
      if (!(await runs.requeueRun(tx, runId, now, actor))) throw conflict(NOT_RESUMABLE);
      if (record) await keepRecord(() => writeLaunchRecord(tx, record, runId, now));
      return { run: (await runs.findRun(tx, runId))!, counted: false };
    };
    if (!record) return this.admit(run.team_id, bypassGate, requeue);
    try {
      return await this.admit(run.team_id, bypassGate, requeue);
    } catch (err) {
      return lostRace(err);
    }
  }

  /**
   * A launch that failed after admission: hands its slot back (once, however often this is
   * called) and fails the run with LAUNCH_FAILED (Errors rule 2).
   */
  async failAfterAdmission(runId: string, cause: string): Promise<void> {
    const now = this.deps.clock.now();
    const failed = await this.deps.store.tx(async (tx) => {
      const released = await runs.releaseMetering(tx, runId);
      if (released) await addOrgRuns(tx, released.orgId, released.month, -1);
      return runs.failActiveRun(tx, runId, "LAUNCH_FAILED", cause, now);
    });
    if (failed) this.deps.metrics.runsFinished.inc({ status: "failed" });
  }

  /**
   * `gated.lock`: the team's rows are locked whatever the limits (a write that reads what concurrent
   * launches write); `gated.keyFree`: a new row's key read before the verdict; `gated.denied`:
   * the denial's own write, in the gate's transaction.
   */
  private async admit(teamId: string, bypassGate: boolean, write: Admit, gated: Gated = {}): Promise<LaunchResult> {
    const { lock = false, keyFree, denied } = gated;
    const { store, clock, metrics, log } = this.deps;
    const now = clock.now();
    const facts = { bypassGate };
    let stage: "check" | "meter" = "check";
    try {
      const result = await store.tx(async (tx): Promise<LaunchResult> => {
        // Rows are locked only when a limit will be checked; unlimited checks read nothing
        // (counting active runs grows with the queue).
        const found = await loadTeamAndOrg(tx, teamId, (f) => lock || this.needsLocks(f, facts));
        if (!found) throw notFound("team");
        const { org } = found;
        await keyFree?.(tx);
        const verdict = decideLaunch(await this.snapshot(tx, found, facts, now), facts, now);
        if (!verdict.admitted) {
          if (denied) await denied(tx, verdict.denial, now);
          return { kind: "denied", denial: verdict.denial };
        }
        if (verdict.bucket) await putLaunchBucket(tx, teamId, verdict.bucket);
        const written = await write(tx, org.id, now, verdict.month);
        // Metering last: the month's run count is what concurrent launches share, so its row
        // lock (PostgreSQL: this connection's tally slot) is held only from here to the commit.
        stage = "meter";
        const counted = written.counted ? written.run : await this.markMetered(tx, written.run, verdict.month);
        if (counted) await addOrgRuns(tx, org.id, verdict.month, 1);
        stage = "check";
        return { kind: "launched", run: counted ?? written.run, metered: true };
      });
      if (result.kind === "denied") metrics.launchDenied.inc({ reason: result.denial.error });
      return result;
    } catch (err) {
      if (err instanceof RecordError) throw err.original;
      if (err instanceof ServiceError) throw err;
      metrics.launchGateErrors.inc({ stage });
      log.error({ err, teamId, stage }, "launch gate store error; failing open, the launch proceeds unmetered");
      return this.admitUngated(teamId, write, now);
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
  private async admitUngated(teamId: string, write: Admit, now: number): Promise<LaunchResult> {
    try {
      return await this.deps.store.tx(async (tx): Promise<LaunchResult> => {
        const team = await findTeam(tx, teamId);
        if (!team) throw notFound("team");
        const { run } = await write(tx, team.org_id, now, null);
        return { kind: "launched", run, metered: false } as const;
      });
    } catch (err) {
      throw err instanceof RecordError ? err.original : err;
    }
  }
}
