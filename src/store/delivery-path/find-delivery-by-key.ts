import type { Selectable } from "kysely";
import { Compiled } from "../compiled.js";
import type { Db } from "../db.js";
import type { WebhookDeliveriesTable } from "../schema/webhooks.js";

/** What a delivery needs of the row that holds its key: a duplicate names it and its run; a launch_error is retried. */
export type KeyHolder = Pick<Selectable<WebhookDeliveriesTable>, "id" | "run_id" | "status">;

// Three columns, not the row: every duplicate reads it, and decoding all ~25 took twice as long.
const deliveryByKey = new Compiled<KeyHolder>(`select "id", "run_id", "status" from "webhook_deliveries" where "tenant_id" = ? and "idempotency_key" = ?`);

/** The delivery holding an idempotency key of a tenant, if any. Hand-written: every launch and duplicate reads it. */
export async function findDeliveryByKey(db: Db, tenantId: string, key: string): Promise<KeyHolder | undefined> {
  return (await deliveryByKey.rows(db, [tenantId, key]))[0];
}
