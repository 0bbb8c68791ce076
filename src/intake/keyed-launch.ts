import type { LaunchDenial } from "../admission/decide-launch.js";
import type { Launcher } from "../admission/launcher.js";
import type { RecordedLaunchResult } from "../admission/launch-types.js";
import type { Clock } from "../core/clock.js";
import type { IdGenerator } from "../core/ids.js";
import type { Metrics } from "../metrics/metrics.js";
import { duplicateRow, findDeliveryByKey, type KeyHolder } from "../store/deliveries.js";
import type { CallLimits, CallRefusal } from "../store/delivery-ledger.js";
import type { DeliveryRecord } from "../store/launch-record.js";
import type { Store } from "../store/store.js";
import { launchRequestOf, type LaunchPlan } from "./pipeline/delivery-decision.js";
import { decideOverlap, overlapGuard } from "./pipeline/overlap.js";
import { deliveryRow, recordedRow, type Base } from "./delivery-rows.js";
import type { DeliveryTarget } from "./delivery-targets.js";
import { HeldKeys } from "./held-keys.js";

/** A replay's row as sent: the ledger writes it as a duplicate (its `duplicateRow`) or not at all. */
const REPLAY = { status: "duplicate" } as const;

export interface KeyedLaunchDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  metrics: Metrics;
  launcher: Launcher;
}

/** One planned bot's launch under its key, each with the delivery row written for it. */
export type KeyedOutcome =
  | { kind: "launched"; deliveryId: string; runId: string }
  | { kind: "duplicate"; deliveryId: string; holder: KeyHolder }
  | { kind: "denied"; deliveryId: string; denial: LaunchDenial }
  /** The call's admission refused it: nothing written; the caller records the refusal. */
  | { kind: "refused"; refusal: CallRefusal }
  /** `overlap` found a run in flight as the launch was written: filtered. */
  | { kind: "filtered"; deliveryId: string; reason: string };

/**
 * The idempotency key's protocol, in one place: is the key free (launch with a new row), held
 * (this delivery's duplicate row, naming the holder), held by a launch_error (the launch retried
 * in place, under the same row), or lost to a concurrent delivery (a duplicate of the winner).
 * Every run goes in through {@link Launcher.launch}, the row as data with it. Keys this process
 * saw held send only their key check and duplicate row first, not a launch built for nothing.
 */
export class KeyedLaunches {
  /** Idempotency keys this process saw held: a replay's hint, the ledger decides. */
  private readonly heldKeys = new HeldKeys();

  constructor(private readonly deps: KeyedLaunchDeps) {}

  async launch(target: DeliveryTarget, planRow: Base, plan: LaunchPlan, admission: CallLimits | undefined): Promise<KeyedOutcome> {
    /** This delivery's own row's id when another holds the key. */
    const replayOf = this.deps.ids.next("dlv");
    if (this.heldKeys.has(target.config.tenant_id, plan.idempotencyKey)) {
      const replayed = await this.replay(planRow, plan, replayOf, admission);
      if (replayed) return replayed;
      admission = undefined;
    }
    const deliveryId = this.deps.ids.next("dlv");
    const insert: DeliveryRecord = { insert: deliveryRow(planRow, { status: "launched" }, deliveryId, plan.idempotencyKey), admission, replayOf };
    const first = await this.attempt(target, plan, deliveryId, insert);
    if (first.kind !== "taken") return this.settled(target, planRow, plan, deliveryId, first);
    const holder = first.holder ?? (await this.winner(target, plan));
    if (holder.status !== "launch_error") return this.duplicate(planRow, plan, holder, first.recorded ? replayOf : undefined);
    // A launch the gate denied before: retried under its row.
    const retried = await this.attempt(target, plan, holder.id, { settle: { id: holder.id, from: "launch_error" } });
    if (retried.kind === "taken") return this.duplicate(planRow, plan, await this.winner(target, plan));
    return this.settled(target, planRow, plan, holder.id, retried);
  }

  /**
   * A remembered key's replay: its key check and duplicate row, with the call's admission. The
   * outcome, or undefined when the launch is to follow (the key free, or held by a launch_error).
   */
  private async replay(planRow: Base, plan: LaunchPlan, replayOf: string, admission: CallLimits | undefined): Promise<KeyedOutcome | undefined> {
    const row = deliveryRow(planRow, REPLAY, replayOf, plan.idempotencyKey);
    const answer = await this.deps.store.ledger.commit({ admission, row, replayOf });
    if (answer.kind === "refused") return answer;
    if (answer.kind === "free") {
      this.heldKeys.forget(planRow.tenant_id, plan.idempotencyKey);
      return undefined;
    }
    if (answer.kind !== "taken") throw new Error(`the ledger answered ${answer.kind} to a replay`);
    return answer.holder.status === "launch_error" ? undefined : this.duplicate(planRow, plan, answer.holder, answer.recorded ? replayOf : undefined);
  }

  private attempt(target: DeliveryTarget, plan: LaunchPlan, deliveryId: string, record: DeliveryRecord): Promise<RecordedLaunchResult> {
    const { config } = target;
    return this.deps.launcher.launch(launchRequestOf(plan, config.tenant_id, config.id, deliveryId), { record, overlap: overlapGuard(config, plan) });
  }

  /** Launched, refused, overlapping, or denied by the gate (the denial written on the row, new or retried). */
  private async settled(
    target: DeliveryTarget,
    planRow: Base,
    plan: LaunchPlan,
    deliveryId: string,
    result: Exclude<RecordedLaunchResult, { kind: "taken" }>,
  ): Promise<KeyedOutcome> {
    const { store, metrics } = this.deps;
    const { provider, tenant_id: tenantId } = target.config;
    switch (result.kind) {
      case "refused":
        return result;
      case "launched":
        this.heldKeys.remember(tenantId, plan.idempotencyKey);
        metrics.webhookDeliveries.inc({ provider, status: "launched" });
        return { kind: "launched", deliveryId, runId: result.run.id };
      case "overlapping": {
        const verdict = decideOverlap(target.config.overlap, plan, result.active);
        const reason = verdict.kind === "skip" ? verdict.reason : `overlap: runs in flight (${result.active.map((r) => r.id).join(", ")})`;
        const id = this.deps.ids.next("dlv");
        await store.ledger.commit({ row: recordedRow(planRow, "filtered", { reason }, id) });
        metrics.webhookDeliveries.inc({ provider, status: "filtered" });
        return { kind: "filtered", deliveryId: id, reason };
      }
      case "denied":
        // The gate's transaction wrote the denial on the row.
        metrics.webhookDeliveries.inc({ provider, status: "launch_error" });
        return { kind: "denied", deliveryId, denial: result.denial };
    }
  }

  /** The row that won the key from this delivery. */
  private async winner(target: DeliveryTarget, plan: LaunchPlan): Promise<KeyHolder> {
    const winner = await findDeliveryByKey(this.deps.store.db, target.config.tenant_id, plan.idempotencyKey);
    if (!winner) throw new Error(`idempotency key ${plan.idempotencyKey} was taken, but no row holds it`);
    return winner;
  }

  /** A duplicate's own row, unless the launch wrote it already (`recordedId`). */
  private async duplicate(planRow: Base, plan: LaunchPlan, holder: KeyHolder, recordedId?: string): Promise<KeyedOutcome> {
    this.heldKeys.remember(planRow.tenant_id, plan.idempotencyKey);
    let deliveryId = recordedId;
    if (!deliveryId) {
      deliveryId = this.deps.ids.next("dlv");
      await this.deps.store.ledger.commit({ row: duplicateRow(planRow, holder, deliveryId) });
    }
    this.deps.metrics.webhookDeliveries.inc({ provider: planRow.provider, status: "duplicate" });
    return { kind: "duplicate", deliveryId, holder };
  }
}
