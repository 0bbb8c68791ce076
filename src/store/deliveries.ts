import type { Insertable, Selectable } from "kysely";
import type { WebhookDeliveriesTable } from "./schema/webhooks.js";
import type { KeyHolder } from "./delivery-path/find-delivery-by-key.js";
import type { Db } from "./db.js";

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type NewDelivery = Insertable<WebhookDeliveriesTable>;

export { insertDelivery } from "./delivery-path/insert-delivery.js";
export { findDeliveryByKey, type KeyHolder } from "./delivery-path/find-delivery-by-key.js";

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

/**
 * A duplicate's own row: its own id and key (so a forge's retry of the event is not taken for
 * it), the holder's run, a reason naming the holder. PostgreSQL's batch builds the same row
 * (store/postgres/deliver-webhook-calls.sql).
 */
export function duplicateRow(launchRow: Omit<NewDelivery, "id" | "status" | "idempotency_key">, holder: KeyHolder, id: string): NewDelivery {
  return Object.assign({}, launchRow, {
    id,
    status: "duplicate" as const,
    idempotency_key: `row|${id}`,
    run_id: holder.run_id,
    reason: `duplicate of ${holder.id}`,
    launched_at: null,
    attempts: 0,
    updated_at: launchRow.created_at,
  });
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

/**
 * Settles a parked launch's `accepted` row: launched, filtered (dropped or superseded, under a
 * key of its own) or launch_error. The row's provider once settled; undefined when the row is no
 * longer `accepted`: another replica or a newer push settled it first.
 */
export async function settleAcceptedDelivery(
  db: Db,
  id: string,
  outcome: Pick<NewDelivery, "status" | "updated_at"> &
    Partial<Pick<NewDelivery, "run_id" | "launched_at" | "failed_at" | "denial_reason" | "reason" | "idempotency_key">>,
): Promise<string | undefined> {
  const row = await db
    .updateTable("webhook_deliveries")
    .set(outcome)
    .where("id", "=", id)
    .where("status", "=", "accepted")
    .returning("provider")
    .executeTakeFirst();
  return row?.provider;
}
