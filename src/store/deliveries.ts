import type { Insertable, Selectable } from "kysely";
import type { WebhookDeliveriesTable } from "./schema/webhooks.js";
import type { Db } from "./store.js";

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type NewDelivery = Insertable<WebhookDeliveriesTable>;

/** Inserts one delivery row; a duplicate (tenant_id, idempotency_key) raises a unique violation. */
export async function insertDelivery(db: Db, row: NewDelivery): Promise<void> {
  await db.insertInto("webhook_deliveries").values(row).execute();
}

/** A webhook's deliveries, newest first. */
export function listDeliveries(db: Db, webhookId: string, limit: number): Promise<DeliveryRow[]> {
  return db
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("webhook_id", "=", webhookId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}
