import type { Clock } from "../core/clock.js";
import type { IdGenerator } from "../core/ids.js";
import type { Metrics } from "../metrics/metrics.js";
import type { Runs } from "../runs/runs.js";
import type { NewDelivery } from "../store/deliveries.js";
import type { CallLimits, CallRefusal } from "../store/delivery-ledger.js";
import type { Store } from "../store/store.js";
import type { WebhookConfig } from "../webhooks/webhook-config.js";
import type { DeliveryOutcome } from "./delivery-outcome.js";
import { baseRow, recordedRow, type Base } from "./delivery-rows.js";
import type { DeliveryTarget } from "./delivery-targets.js";
import type { DeliveryWrites } from "./delivery-writes.js";
import type { IssueCards } from "./issue-cards.js";
import type { KeyedLaunches } from "./keyed-launch.js";
import type { ParkedLaunches } from "./parked-launches.js";
import type { RefusalCode } from "./pipeline/delivery-decision.js";

/** What the outcome handlers act with. */
export interface OutcomeDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  metrics: Metrics;
  runs: Runs;
  parked: ParkedLaunches;
  cards: IssueCards;
  keyed: KeyedLaunches;
  writes: DeliveryWrites;
}

/**
 * One webhook call once its admission is taken: the row its outcome writes, and the admission
 * while it is pending. A pending admission is written with the outcome's first write (one write,
 * one call of a batch on PostgreSQL), or alone by an outcome that writes no delivery row first;
 * either way once. A refused call is refused whatever its body: the gates' order decides the answer.
 */
export class DeliveryCall {
  constructor(
    readonly deps: OutcomeDeps,
    readonly target: DeliveryTarget,
    /** The outcome's row as the body made it. */
    readonly row: Base,
    readonly now: number,
    private pending: CallLimits | undefined,
  ) {}

  get config(): WebhookConfig {
    return this.target.config;
  }

  /** The pending admission, for the outcome's first write to carry; afterwards none is pending. */
  takeAdmission(): CallLimits | undefined {
    const pending = this.pending;
    this.pending = undefined;
    return pending;
  }

  /** The pending admission as a write of its own: the refusal's answer, or undefined when admitted. */
  async admitAlone(): Promise<DeliveryOutcome | undefined> {
    const pending = this.takeAdmission();
    if (!pending) return undefined;
    const admitted = await this.deps.store.ledger.admit(pending);
    return admitted.kind === "admitted" ? undefined : this.refuse(admitted);
  }

  /** A non-launching outcome's row, with the pending admission; or the refusal. */
  async record(
    status: "filtered" | "invalid" | "launch_error",
    reason: string,
    answer: (deliveryId: string) => DeliveryOutcome,
    refusalCode: RefusalCode | null = null,
  ): Promise<DeliveryOutcome> {
    const id = this.deps.ids.next("dlv");
    const committed = await this.deps.store.ledger.commit({
      admission: this.takeAdmission(),
      row: recordedRow(this.row, status, { reason, refusal_code: refusalCode }, id),
    });
    if (committed.kind === "refused") return this.refuse(committed.refusal);
    this.deps.metrics.webhookDeliveries.inc({ provider: this.row.provider, status });
    return answer(id);
  }

  /** A row of this call as a write of its own (the admission written already). */
  recordNow(row: Base, status: NewDelivery["status"], extra: Partial<NewDelivery>): Promise<string> {
    return this.deps.writes.recordNow(row, status, extra);
  }

  /** The call refused by the bucket or the quota: its own row (nothing of the body's summary), and the 429. */
  refuse(refusal: CallRefusal): Promise<DeliveryOutcome> {
    const row = baseRow(this.config, this.row.source_ip ?? null, this.now, this.row.payload_sha256 ?? null);
    return this.deps.writes.refuse(row, refusal, this.now);
  }
}
