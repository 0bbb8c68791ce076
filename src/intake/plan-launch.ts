import type { LaunchResult } from "../admission/launch-types.js";
import type { Launcher } from "../admission/launcher.js";
import type { Clock } from "../core/clock.js";
import type { IdGenerator } from "../core/ids.js";
import type { Metrics } from "../metrics/metrics.js";
import { duplicateRow, findDeliveryByKey, retryFailedDelivery, type KeyHolder, type NewDelivery } from "../store/deliveries.js";
import type { CallLimits, CallRefusal } from "../store/delivery-ledger.js";
import { isUniqueViolation } from "../store/errors.js";
import type { Store } from "../store/store.js";
import type { Logger } from "pino";
import { launchRequestOf, type LaunchPlan } from "./pipeline/delivery-decision.js";
import type { LaunchResultOf } from "./delivery-outcome.js";
import { deliveryRow, planRowOf, type Base } from "./delivery-rows.js";
import type { DeliveryTarget } from "./delivery-targets.js";
import { HeldKeys } from "./held-keys.js";
import { launchDelivery } from "./launch-delivery.js";

/** A replay's row as sent: the ledger writes it as a duplicate (its `duplicateRow`) or not at all. */
const REPLAY = { status: "duplicate" } as const;

export interface PlanLaunchDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  metrics: Metrics;
  log: Logger;
  launcher: Launcher;
}

/** One bot's launch under its key, as it stands after the first write. */
type Launched = { result: LaunchResult; deliveryId: string; retried: boolean } | { taken: KeyHolder; recordedId?: string };

/**
 * One planned bot's launch under its idempotency key: a duplicate of the row that holds the key,
 * a launch_error row of the key retried in place, or a new row with its run; then the outcome's
 * row and count. Keys this process saw held are checked (and their duplicate row written) before
 * any launch is built.
 */
export class PlanLaunches {
  /** Idempotency keys this process saw held: a replay's hint, the ledger decides. */
  private readonly heldKeys = new HeldKeys();

  constructor(private readonly deps: PlanLaunchDeps) {}

  async launch(
    target: DeliveryTarget,
    row: Base,
    plan: LaunchPlan,
    admission?: CallLimits,
  ): Promise<LaunchResultOf | { kind: "refused"; refusal: CallRefusal }> {
    const teamId = target.config.tenant_id;
    const planRow = planRowOf(row, plan);
    try {
      const first = await this.firstWrite(target, planRow, plan, admission);
      if ("kind" in first) return first;
      const settled = "taken" in first && first.taken.status === "launch_error" ? await this.retryFailed(target, plan, first.taken) : first;
      if ("taken" in settled) {
        this.heldKeys.remember(teamId, plan.idempotencyKey);
        return this.duplicate(planRow, settled.taken, plan.botId, settled.recordedId);
      }
      return await this.outcome(target, planRow, plan, settled);
    } catch (err) {
      if (!(err instanceof LostRace) && !isUniqueViolation(err)) throw err;
      // Another delivery of the same event won the key: this one is its duplicate.
      const winner = await findDeliveryByKey(this.deps.store.db, teamId, plan.idempotencyKey);
      if (!winner) throw err;
      this.heldKeys.remember(teamId, plan.idempotencyKey);
      return this.duplicate(planRow, winner, plan.botId);
    }
  }

  /** The call's first write: a held key's replay check, else the launch with its new row. */
  private async firstWrite(
    target: DeliveryTarget,
    planRow: Base,
    plan: LaunchPlan,
    admission?: CallLimits,
  ): Promise<Launched | { kind: "refused"; refusal: CallRefusal }> {
    const { store, ids } = this.deps;
    const { config } = target;
    const key = plan.idempotencyKey;
    /** This delivery's own row's id when another holds the key. */
    const duplicateId = ids.next("dlv");
    if (this.heldKeys.has(config.tenant_id, key)) {
      const answer = await store.ledger.commit({ admission, row: deliveryRow(planRow, REPLAY, duplicateId, key), replayOf: duplicateId });
      if (answer.kind === "refused") return answer;
      if (answer.kind === "taken") return { taken: answer.holder, recordedId: answer.recorded ? duplicateId : undefined };
      if (answer.kind !== "free") throw new Error(`the ledger answered ${answer.kind} to a replay`);
      this.heldKeys.forget(config.tenant_id, key);
      admission = undefined;
    }
    const deliveryId = ids.next("dlv");
    const result = await launchDelivery(this.deps, launchRequestOf(plan, config.tenant_id, config.id, deliveryId), {
      tenantId: config.tenant_id,
      idempotencyKey: key,
      admission,
      ungated: target.ungated,
      row: (run) => deliveryRow(planRow, this.launchedColumns(run.id), deliveryId, key),
      replayOf: duplicateId,
    });
    if (result.kind === "refused") return result;
    if (result.kind === "taken") return { taken: result.holder, recordedId: result.recorded ? duplicateId : undefined };
    return { result, deliveryId, retried: false };
  }

  /** A launch the gate denied before, retried under the same row. */
  private async retryFailed(target: DeliveryTarget, plan: LaunchPlan, failed: KeyHolder): Promise<Launched> {
    const result = await this.deps.launcher.launch(launchRequestOf(plan, target.config.tenant_id, target.config.id, failed.id), {
      within: async (tx, run) => {
        if (!(await retryFailedDelivery(tx, failed.id, this.launchedColumns(run.id)))) throw new LostRace();
      },
    });
    return { result, deliveryId: failed.id, retried: true };
  }

  /** Launched, or denied by the gate: the denial's launch_error row (new, or the retried one rewritten). */
  private async outcome(target: DeliveryTarget, planRow: Base, plan: LaunchPlan, l: Extract<Launched, { result: LaunchResult }>): Promise<LaunchResultOf> {
    const { store, clock, metrics } = this.deps;
    const provider = target.config.provider;
    const { result, deliveryId } = l;
    if (result.kind === "launched") {
      this.heldKeys.remember(target.config.tenant_id, plan.idempotencyKey);
      metrics.webhookDeliveries.inc({ provider, status: "launched" });
      return { kind: "launched", deliveryId, runId: result.run.id, botId: plan.botId };
    }
    const now = clock.now();
    const failed = {
      status: "launch_error" as const,
      run_id: null,
      launched_at: null,
      failed_at: now,
      denial_reason: result.denial.error,
      reason: result.denial.detail,
      updated_at: now,
    };
    if (!l.retried) await store.ledger.commit({ row: deliveryRow(planRow, failed, deliveryId, plan.idempotencyKey) });
    else if (!(await store.tx((tx) => retryFailedDelivery(tx, deliveryId, failed)))) throw new LostRace();
    metrics.webhookDeliveries.inc({ provider, status: "launch_error" });
    return { kind: "denied", deliveryId, botId: plan.botId, denial: result.denial };
  }

  private launchedColumns(runId: string) {
    const now = this.deps.clock.now();
    return { status: "launched" as const, run_id: runId, launched_at: now, failed_at: null, denial_reason: null, reason: null, updated_at: now };
  }

  /** A duplicate's own row, unless the launch wrote it already (`recordedId`). */
  private async duplicate(row: Base, original: KeyHolder, botId: string, recordedId?: string): Promise<LaunchResultOf> {
    let deliveryId = recordedId;
    if (!deliveryId) {
      deliveryId = this.deps.ids.next("dlv");
      await this.deps.store.ledger.commit({ row: duplicateRow(row, original, deliveryId) as NewDelivery });
    }
    this.deps.metrics.webhookDeliveries.inc({ provider: row.provider, status: "duplicate" });
    return { kind: "duplicate", deliveryId, runId: original.run_id, originalDeliveryId: original.id, botId };
  }
}

/** A concurrent retry took the launch_error row first. */
class LostRace extends Error {}
