import type { Db } from "./db.js";
import type { DeliveryRow } from "./deliveries.js";
import type { DeliveryStatus } from "./schema/webhooks.js";

/** A page of a webhook's delivery log: at most `limit` rows beside a cursor row, narrowed by the filters. */
export interface DeliveryPageQuery {
  limit: number;
  /** Rows newer than this one (the page nearest to it: nothing between the cursor and the page is skipped). */
  after?: Pick<DeliveryRow, "id" | "created_at">;
  /** Rows older than this one. */
  before?: Pick<DeliveryRow, "id" | "created_at">;
  status?: DeliveryStatus;
  eventKind?: string;
  /** Epoch ms: rows created at or after it. */
  since?: number;
}

/**
 * A page of a webhook's deliveries, newest first, and whether more rows lie past it in the
 * direction it was read (older without `after`, newer with it). Ordered by (created_at, id), the
 * `webhook_deliveries_recent` index's order, so a row created in the same millisecond as the
 * cursor is neither skipped nor shown twice.
 */
export async function pageDeliveries(db: Db, webhookId: string, q: DeliveryPageQuery): Promise<{ rows: DeliveryRow[]; more: boolean }> {
  const newer = q.after !== undefined;
  let query = db.selectFrom("webhook_deliveries").selectAll().where("webhook_id", "=", webhookId);
  if (q.after) {
    const { created_at, id } = q.after;
    query = query.where((eb) => eb.or([eb("created_at", ">", created_at), eb.and([eb("created_at", "=", created_at), eb("id", ">", id)])]));
  }
  if (q.before) {
    const { created_at, id } = q.before;
    query = query.where((eb) => eb.or([eb("created_at", "<", created_at), eb.and([eb("created_at", "=", created_at), eb("id", "<", id)])]));
  }
  if (q.status !== undefined) query = query.where("status", "=", q.status);
  if (q.eventKind !== undefined) query = query.where("event_kind", "=", q.eventKind);
  if (q.since !== undefined) query = query.where("created_at", ">=", q.since);
  const dir = newer ? "asc" : "desc";
  const rows = await query
    .orderBy("created_at", dir)
    .orderBy("id", dir)
    .limit(q.limit + 1)
    .execute();
  const more = rows.length > q.limit;
  if (more) rows.pop();
  return { rows: newer ? rows.reverse() : rows, more };
}

/** One delivery of a webhook. */
export function findDeliveryOfWebhook(db: Db, webhookId: string, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom("webhook_deliveries").selectAll().where("id", "=", id).where("webhook_id", "=", webhookId).executeTakeFirst();
}
