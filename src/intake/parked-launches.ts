import { decideOverlap, overlapGuard, type OverlapStep, type OverlapVerdict } from "./pipeline/overlap.js";
import type { LaunchDenial } from "../admission/decide-launch.js";
import type { RecordedLaunchResult } from "../admission/launch-types.js";
import type { Runs } from "../runs/runs.js";
import type { Logger } from "pino";
import type { Launcher } from "../admission/launcher.js";
import type { Clock } from "../core/clock.js";
import type { IdGenerator } from "../core/ids.js";
import type { Metrics } from "../metrics/metrics.js";
import { duplicateRow, findDeliveryByKey, insertDelivery, settleAcceptedDelivery, type NewDelivery } from "../store/deliveries.js";
import { isUniqueViolation } from "../store/errors.js";
import { Periodic } from "../core/periodic.js";
import {
  anyDueParked,
  claimDueParked,
  deleteParked,
  findParked,
  insertParked,
  parkedForSubject,
  rearmParked,
  type ParkedLaunch,
} from "../store/parked-launches.js";
import type { Store } from "../store/store.js";
import type { WebhookConfig } from "../webhooks/webhook-config.js";
import { launchRequestOf, type LaunchPlan } from "./pipeline/delivery-decision.js";
import { deliveryRow, planRowOf, recordedRow, type Base } from "./delivery-rows.js";
import type { DeliveryTargets } from "./delivery-targets.js";
import { botPermitted } from "./pipeline/route-bots.js";

/** How often due parked launches are swept (Webhook intake limits: every 20 seconds). */
export const SWEEP_EVERY_MS = 20_000;
/** Launches the gate refused for now are tried this many times in all (about 45 minutes), then abandoned. */
export const MAX_ATTEMPTS = 8;
/** A sweep holds the launches it took this long; one that stops leaves them to a later sweep. */
const LEASE_MS = 60_000;
/** Parked launches one sweep takes at most; the rest wait for the next. */
const SWEEP_BATCH = 50;
/** The gate's refusals that pass with time; every other one abandons the launch. */
const RETRIED_DENIALS = new Set(["concurrency_cap_exceeded", "launch_rate_limited"]);

/** The wait before the next try after `attempts` refused ones: 30 s doubling to 10 min (8 tries span ~45 min). */
export function retryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** (attempts - 1), 600_000);
}

/** One bot's answer to a parked synchronize push. */
export type ParkResult =
  /** 202: parked until `launchAt` unless a newer push replaces it. */
  | { kind: "deferred"; deliveryId: string; botId: string; launchAt: number }
  /** 200: an older push than the one parked. */
  | { kind: "filtered"; deliveryId: string; botId: string; reason: string }
  /** 200: this push is parked or launched already. */
  | { kind: "duplicate"; deliveryId: string; runId: string | null; originalDeliveryId: string; botId: string };

export interface ParkedLaunchesDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  launcher: Launcher;
  targets: DeliveryTargets;
  /** The webhook's `overlap`, decided at the launch's own time. */
  overlap: OverlapStep;
  /** Cancels the runs a supersede launch replaces. */
  runs: Pick<Runs, "cancel">;
  metrics: Metrics;
  log: Logger;
  /** The quiet window after the last push (SERVICE_WEBHOOK_SYNC_DEBOUNCE). */
  quietMs: number;
  /** The longest a stream of pushes postpones the launch (SERVICE_WEBHOOK_SYNC_MAX_WAIT). */
  maxWaitMs: number;
}

/**
 * Synchronize launches parked for the debounce (the parked synchronize launch table). A push is
 * parked as an `accepted` delivery under its launch's idempotency key, with one parked launch
 * per webhook, bot and pull request: a newer push (by the forge's event time, then arrival)
 * replaces it and re-arms the quiet window, an older one is filtered. A sweep launches what is
 * due through the gate, the row becoming `launched`; it drops what the webhook no longer asks
 * for, re-arms what the gate refuses for now (concurrency, launch rate) with a growing wait,
 * and abandons the rest as `launch_error`. A lease on each parked launch and the `accepted`
 * row's status keep replicas from launching one twice.
 */
export class ParkedLaunches {
  /** Its timer: the sweepers' catalog (src/sweepers.ts) names, starts and stops it. */
  readonly periodic: Periodic;

  constructor(private readonly deps: ParkedLaunchesDeps) {
    this.periodic = new Periodic(SWEEP_EVERY_MS, () => this.sweepOnce());
  }

  /** Parks one bot's launch of a synchronize push. `row` is the delivery's row, `eventAt` the forge's event time. */
  async park(row: Base, plan: LaunchPlan, eventAt: string | undefined): Promise<ParkResult> {
    try {
      return await this.parkOnce(row, plan, eventAt);
    } catch (err) {
      // Another replica parked the first push of this pull request at the same moment.
      if (!isUniqueViolation(err)) throw err;
      return this.parkOnce(row, plan, eventAt);
    }
  }

  private async parkOnce(row: Base, plan: LaunchPlan, eventAt: string | undefined): Promise<ParkResult> {
    const { store, clock, ids, quietMs, maxWaitMs } = this.deps;
    const now = clock.now();
    const planRow = planRowOf(row, plan);
    const botId = plan.botId;
    let superseded = false;
    const result = await store.tx(async (tx): Promise<ParkResult> => {
      const held = await findDeliveryByKey(tx, planRow.tenant_id, plan.idempotencyKey);
      if (held) {
        const id = ids.next("dlv");
        await insertDelivery(tx, duplicateRow(planRow, held, id));
        return { kind: "duplicate", deliveryId: id, runId: held.run_id, originalDeliveryId: held.id, botId };
      }
      const eventMs = eventTime(eventAt) ?? now;
      const parked = await findParked(tx, planRow.webhook_id, botId, plan.subjectId);
      const id = ids.next("dlv");
      if (parked && parked.event_ms > eventMs) {
        const reason = `an older push than the one parked (${parked.delivery_id})`;
        await insertDelivery(tx, recordedRow(planRow, "filtered", { reason }, id));
        return { kind: "filtered", deliveryId: id, botId, reason };
      }
      const firstParkedAt = parked?.first_parked_at ?? now;
      const fireAt = Math.min(now + quietMs, firstParkedAt + maxWaitMs);
      if (parked) {
        await deleteParked(tx, parked.delivery_id);
        const released = releasedRow(parked, `superseded by a newer push (${id})`);
        superseded = (await settleAcceptedDelivery(tx, parked.delivery_id, { ...released, updated_at: now })) !== undefined;
      }
      const reason = `parked: launches at ${new Date(fireAt).toISOString()} unless a newer push replaces it`;
      await insertDelivery(tx, deliveryRow(planRow, { status: "accepted", reason }, id, plan.idempotencyKey));
      await insertParked(tx, {
        delivery_id: id,
        tenant_id: planRow.tenant_id,
        webhook_id: planRow.webhook_id,
        bot_id: botId,
        subject_id: plan.subjectId,
        event_ms: eventMs,
        arrived_at: now,
        first_parked_at: firstParkedAt,
        fire_at: fireAt,
        attempts: 0,
        lease_until: 0,
        plan: JSON.stringify(plan),
      });
      return { kind: "deferred", deliveryId: id, botId, launchAt: fireAt };
    });
    if (result.kind !== "deferred") this.count(row.provider, result.kind);
    if (superseded) this.count(row.provider, "filtered");
    return result;
  }

  /** Drops the launches parked for a closed pull request; how many. */
  async dropForSubject(webhookId: string, subjectId: string, reason: string): Promise<number> {
    let dropped = 0;
    for (const parked of await parkedForSubject(this.deps.store.db, webhookId, subjectId)) {
      if (await this.settle(parked, releasedRow(parked, reason))) dropped++;
    }
    return dropped;
  }

  /** Launches, drops, re-arms or abandons every parked launch that is due; how many it took. */
  sweep(): Promise<number> {
    return this.periodic.run() as Promise<number>;
  }

  private async sweepOnce(): Promise<number> {
    const { store, clock, log } = this.deps;
    if (!(await anyDueParked(store.db, clock.now()))) return 0;
    const due = await store.tx((db) => claimDueParked(db, clock.now(), LEASE_MS, SWEEP_BATCH));
    for (const parked of due) {
      // Left leased, a launch that failed here is taken again once its lease runs out.
      await this.fire(parked).catch((err: unknown) => log.warn({ err, deliveryId: parked.delivery_id }, "parked launch failed; retried after its lease"));
    }
    return due.length;
  }

  private async fire(parked: ParkedLaunch): Promise<void> {
    const { clock, launcher, targets } = this.deps;
    const plan = JSON.parse(parked.plan) as LaunchPlan;
    const config = (await targets.get(parked.webhook_id))?.config;
    const unwanted = unwantedReason(config, parked.bot_id);
    if (!config || unwanted) {
      await this.settle(parked, releasedRow(parked, `parked launch dropped: ${unwanted}`));
      return;
    }
    // `overlap` is the webhook's as it is now, against the runs in flight now: the push waited.
    const overlap = await this.deps.overlap.verdict(config, plan);
    if (overlap.kind === "skip") {
      await this.settle(parked, releasedRow(parked, `parked launch dropped: ${overlap.reason}`));
      return;
    }
    const now = clock.now();
    const result = await launcher.launch(launchRequestOf(plan, config.tenant_id, parked.webhook_id, parked.delivery_id), {
      record: { settle: { id: parked.delivery_id, from: "accepted" } },
      overlap: overlapGuard(config, plan),
    });
    await this.afterLaunch(parked, config, plan, overlap, result, now);
  }

  /** What the launch's answer leaves of the parked launch. */
  private async afterLaunch(
    parked: ParkedLaunch,
    config: WebhookConfig,
    plan: LaunchPlan,
    overlap: OverlapVerdict,
    result: RecordedLaunchResult,
    now: number,
  ): Promise<void> {
    switch (result.kind) {
      // A run launched meanwhile by another delivery of the pull request: `overlap` skips this one.
      case "overlapping": {
        const skipped = decideOverlap(config.overlap, plan, result.active);
        await this.settle(parked, releasedRow(parked, `parked launch dropped: ${skipped.kind === "skip" ? skipped.reason : "a run is in flight"}`));
        return;
      }
      // Nothing launched because a newer push or a closed pull request settled the row first.
      case "taken":
        await this.deps.store.tx((db) => deleteParked(db, parked.delivery_id));
        return;
      case "launched":
        await this.deps.store.tx((db) => deleteParked(db, parked.delivery_id));
        this.count(config.provider, "launched");
        if (overlap.kind === "supersede") for (const runId of overlap.runIds) await this.deps.runs.cancel(runId);
        return;
      case "refused":
        throw new Error("a parked launch has no call admission to refuse it");
      case "denied":
        return this.denied(parked, result.denial, now);
    }
  }

  /** The gate refused the launch: re-armed while the refusal passes with time and tries are left, else abandoned. */
  private async denied(parked: ParkedLaunch, denial: LaunchDenial, now: number): Promise<void> {
    const attempts = parked.attempts + 1;
    const retried = RETRIED_DENIALS.has(denial.error);
    if (retried && attempts < MAX_ATTEMPTS) {
      await this.deps.store.tx((db) => rearmParked(db, parked.delivery_id, attempts, now + retryDelayMs(attempts)));
      return;
    }
    const reason = retried ? `parked launch abandoned after ${attempts} attempts: ${denial.detail}` : `parked launch abandoned: ${denial.detail}`;
    await this.settle(parked, { status: "launch_error", denial_reason: denial.error, reason, failed_at: now });
  }

  /** Settles a parked launch's row and forgets it, in one transaction; false when the row was settled already. */
  private async settle(parked: ParkedLaunch, outcome: Pick<NewDelivery, "status"> & Partial<NewDelivery>): Promise<boolean> {
    const { store, clock } = this.deps;
    const provider = await store.tx(async (tx) => {
      const settled = await settleAcceptedDelivery(tx, parked.delivery_id, { ...outcome, updated_at: clock.now() });
      await deleteParked(tx, parked.delivery_id);
      return settled;
    });
    if (provider !== undefined) this.count(provider, outcome.status);
    return provider !== undefined;
  }

  private count(provider: string, status: NewDelivery["status"]): void {
    this.deps.metrics.webhookDeliveries.inc({ provider, status });
  }
}

/** Why the webhook no longer asks for a parked launch of `botId`, or undefined when it still does. */
function unwantedReason(config: WebhookConfig | undefined, botId: string): string | undefined {
  if (!config?.enabled) return "the webhook is disabled or deleted";
  if (!config.review_on_sync) return "review_on_sync was cleared";
  if (!botPermitted(config, botId)) return `bot ${botId} is no longer in bot_ids`;
  return undefined;
}

/** A parked launch's row, filtered and under a key of its own, so a forge's retry of its push is not taken for it. */
function releasedRow(parked: ParkedLaunch, reason: string) {
  return { status: "filtered" as const, idempotency_key: `row|${parked.delivery_id}`, reason };
}

/** The forge's event time in epoch ms, if it gives a readable one. */
function eventTime(eventAt: string | undefined): number | undefined {
  const ms = eventAt === undefined ? NaN : Date.parse(eventAt);
  return Number.isFinite(ms) ? ms : undefined;
}
