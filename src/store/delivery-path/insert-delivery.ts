import type { Insertable } from "kysely";
import { compiledInsert } from "../compiled.js";
import type { Db } from "../db.js";
import { NEW_DELIVERY, type WebhookDeliveriesTable } from "../schema/webhooks.js";

const insertDeliveryRow = compiledInsert<WebhookDeliveriesTable>("webhook_deliveries", NEW_DELIVERY);

/**
 * Inserts one delivery row; a duplicate (tenant_id, idempotency_key) raises a unique violation.
 * Hand-written: every delivery writes one.
 */
export async function insertDelivery(db: Db, row: Insertable<WebhookDeliveriesTable>): Promise<void> {
  await insertDeliveryRow(db, row);
}
