import type { Insertable, Selectable } from "kysely";
import type { Db } from "./db.js";
import type { KeptRequestsTable, RedeliveriesTable } from "./schema/kept-requests.js";

export type KeptRequestRow = Selectable<KeptRequestsTable>;
export type RedeliveryRow = Selectable<RedeliveriesTable>;

/** A kept request, and the delivery rows it gave. */
export async function insertKeptRequest(db: Db, row: Insertable<KeptRequestsTable>, deliveryIds: readonly string[]): Promise<void> {
  await db.insertInto("kept_requests").values(row).execute();
  await linkKeptRequest(db, row.id, deliveryIds);
}

/** Delivery rows (a redelivery's) that the kept request gave too. */
export async function linkKeptRequest(db: Db, requestId: string, deliveryIds: readonly string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await db
    .insertInto("kept_request_rows")
    .values(deliveryIds.map((delivery_id) => ({ delivery_id, request_id: requestId })))
    .execute();
}

/** The kept request that gave a delivery row, if it is still kept. */
export function findKeptRequestOf(db: Db, deliveryId: string): Promise<KeptRequestRow | undefined> {
  return db
    .selectFrom("kept_request_rows")
    .innerJoin("kept_requests", "kept_requests.id", "kept_request_rows.request_id")
    .selectAll("kept_requests")
    .where("kept_request_rows.delivery_id", "=", deliveryId)
    .executeTakeFirst();
}

/**
 * Forgets kept requests created before `before`, at most `limit` of them, with their links;
 * answers how many went. A sweep calls it until it answers less than `limit`.
 */
export async function deleteKeptRequestsBefore(db: Db, before: number, limit: number): Promise<number> {
  const stale = await db.selectFrom("kept_requests").select("id").where("created_at", "<", before).orderBy("created_at").limit(limit).execute();
  if (stale.length === 0) return 0;
  const ids = stale.map((r) => r.id);
  await db.deleteFrom("kept_request_rows").where("request_id", "in", ids).execute();
  await db.deleteFrom("kept_requests").where("id", "in", ids).execute();
  return ids.length;
}

export async function insertRedeliveries(db: Db, rows: Insertable<RedeliveriesTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto("redeliveries").values(rows).execute();
}

/** What a delivery row sent again, when it was a redelivery. */
export function findRedelivery(db: Db, deliveryId: string): Promise<RedeliveryRow | undefined> {
  return db.selectFrom("redeliveries").selectAll().where("delivery_id", "=", deliveryId).executeTakeFirst();
}

/** The rows that sent a delivery again, oldest first. */
export async function listRedeliveriesOf(db: Db, deliveryId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("redeliveries")
    .select("delivery_id")
    .where("redelivery_of", "=", deliveryId)
    .orderBy("created_at")
    .orderBy("delivery_id")
    .execute();
  return rows.map((r) => r.delivery_id);
}
