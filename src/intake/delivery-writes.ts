import { BoundedMap } from "../core/bounded-map.js";
import type { Metrics } from "../metrics/metrics.js";
import type { IdGenerator } from "../core/ids.js";
import type { NewDelivery } from "../store/deliveries.js";
import type { CallRefusal } from "../store/delivery-ledger.js";
import type { Store } from "../store/store.js";
import type { DeliveryOutcome } from "./delivery-outcome.js";
import { recordedRow, type Base } from "./delivery-rows.js";

/** How long a webhook whose monthly quota refused a call takes the admission-first path. */
const QUOTA_RECHECK_MS = 60_000;
/** Webhooks with a refusal hint at most; past it the oldest hint goes first. */
const REFUSED_HINTS_MAX = 10_000;

/**
 * The intake's writes of a row of its own (not a launch): a non-launching outcome's row, and a
 * call the bucket or the monthly quota refused. Keeps, per webhook, until when this process last
 * saw its calls refused: a hint that sends the admission first, the store decides.
 */
export class DeliveryWrites {
  private readonly refusedUntil = new BoundedMap<string, number>(REFUSED_HINTS_MAX);

  constructor(private readonly deps: { store: Store; ids: IdGenerator; metrics: Metrics }) {}

  /** Whether this webhook's calls were refused lately: its next call's admission goes first, alone. */
  refusedLately(webhookId: string, now: number): boolean {
    return (this.refusedUntil.get(webhookId) ?? 0) > now;
  }

  /** A call of the webhook was admitted: the hint is dropped. */
  admitted(webhookId: string): void {
    this.refusedUntil.delete(webhookId);
  }

  /** A non-launched row as a write of its own, counted once it is durable. */
  async recordNow(row: Base, status: NewDelivery["status"], extra: Partial<NewDelivery>): Promise<string> {
    const id = this.deps.ids.next("dlv");
    await this.deps.store.ledger.commit({ row: recordedRow(row, status, extra, id) });
    this.deps.metrics.webhookDeliveries.inc({ provider: row.provider, status });
    return id;
  }

  /** A call the bucket or the monthly quota refused: recorded under a key of its own. */
  async refuse(row: Base, refusal: CallRefusal, now: number): Promise<DeliveryOutcome> {
    this.deps.metrics.webhookThrottled.inc({ provider: row.provider, reason: refusal.kind });
    const refusedFor = refusal.kind === "rate_limited" ? refusal.retryAfterSeconds * 1000 : QUOTA_RECHECK_MS;
    this.refusedUntil.set(row.webhook_id, now + refusedFor);
    if (refusal.kind === "rate_limited") {
      const deliveryId = await this.recordNow(row, "rate_limited", { reason: "webhook rate limit" });
      return { kind: "rate_limited", deliveryId, retryAfterSeconds: refusal.retryAfterSeconds };
    }
    const deliveryId = await this.recordNow(row, "quota_exceeded", { reason: `monthly call quota exceeded (${refusal.scope})` });
    return { kind: "quota_exceeded", deliveryId };
  }
}
