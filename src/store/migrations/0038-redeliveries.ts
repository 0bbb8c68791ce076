import type { Kysely, Migration } from "kysely";

/** A delivery sent again from its kept request: each row it gave names the delivery it sends again. */
export const m0038Redeliveries: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("redeliveries")
      .addColumn("delivery_id", "text", (c) => c.primaryKey())
      .addColumn("redelivery_of", "text", (c) => c.notNull())
      .addColumn("webhook_id", "text", (c) => c.notNull())
      // `verified_again` (a current secret proves the kept signature) or `verified_on_arrival`.
      .addColumn("proof", "text", (c) => c.notNull())
      // The fresh idempotency key's salt when the caller asked for one, else null.
      .addColumn("fresh_key", "text")
      .addColumn("requested_by", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("redeliveries_of").on("redeliveries").column("redelivery_of").execute();
  },
};
