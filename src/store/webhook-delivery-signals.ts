import type { Db } from "./db.js";

/** What a webhook's delivery log says about the hook that calls it. */
export interface WebhookDeliverySignals {
  /** The latest delivery received, whatever became of it. */
  lastReceivedAt: number | null;
  /** Deliveries refused unproven after `since`, and the latest of them. */
  refused: number;
  lastRefusedAt: number | null;
}

/** The refusal codes of deliveries that the webhook's secret did not prove: a bad signature, a bad token. */
export const UNPROVEN_REFUSAL_CODES = ["bad_signature", "bad_token"] as const;

/**
 * A webhook's latest delivery, and its rows after `since` refused because the signature or token
 * did not prove them (by their `refusal_code`; an unreadable body or a missing secret is not
 * counted). Both read the (webhook_id, created_at) index.
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
    .where("refusal_code", "in", UNPROVEN_REFUSAL_CODES)
    .executeTakeFirst();
  return { lastReceivedAt: latest?.at ?? null, refused: Number(refused?.n ?? 0), lastRefusedAt: refused?.at ?? null };
}
