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

/** The delivery holding an idempotency key of a tenant, if any. */
export function findDeliveryByKey(db: Db, tenantId: string, key: string): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("idempotency_key", "=", key)
    .executeTakeFirst();
}

/**
 * A launch_error row retried under its own key: the new outcome replaces the old, attempts
 * +1. Only a row still in launch_error is taken, so two concurrent retries cannot both win.
 */
export async function retryFailedDelivery(
  db: Db,
  id: string,
  outcome: Pick<NewDelivery, "status" | "run_id" | "launched_at" | "failed_at" | "denial_reason" | "reason" | "updated_at">,
): Promise<boolean> {
  const r = await db
    .updateTable("webhook_deliveries")
    .set((eb) => ({ ...outcome, attempts: eb("attempts", "+", 1) }))
    .where("id", "=", id)
    .where("status", "=", "launch_error")
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
