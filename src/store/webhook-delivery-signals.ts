import type { Db } from "./db.js";

/** What a webhook's delivery log says about the hook that calls it. */
export interface WebhookDeliverySignals {
  /** The latest delivery received, whatever became of it. */
  lastReceivedAt: number | null;
  /** Deliveries refused unproven after `since`, and the latest of them. */
  refused: number;
  lastRefusedAt: number | null;
}

/**
 * A webhook's latest delivery, and its `invalid` rows after `since` whose body never became an
 * event: the signature or token did not prove them (or, rarely, a proven body could not be read).
 * Both read the (webhook_id, created_at) index.
 */
export async function webhookDeliverySignals(db: Db, webhookId: string, since: number): Promise<WebhookDeliverySignals> {
  const latest = await db
    .selectFrom("webhook_deliveries")
    .select((eb) => eb.fn.max("created_at").as("at"))
    .where("webhook_id", "=", webhookId)
    .executeTakeFirst();
  const refused = await db
    .selectFrom("webhook_deliveries")
    .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.max("created_at").as("at")])
    .where("webhook_id", "=", webhookId)
    .where("created_at", ">", since)
    .where("status", "=", "invalid")
    .where("event_kind", "is", null)
    .executeTakeFirst();
  return { lastReceivedAt: latest?.at ?? null, refused: Number(refused?.n ?? 0), lastRefusedAt: refused?.at ?? null };
}
