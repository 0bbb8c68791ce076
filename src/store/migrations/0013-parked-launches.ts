import type { Kysely, Migration } from "kysely";

/**
 * Synchronize launches parked for the debounce (store/parked-launches.ts): at most one per
 * webhook, bot and pull request, the newest push's. The row is keyed by its delivery's id,
 * the `accepted` row that becomes `launched` when the sweep launches it.
 */
export const m0013ParkedLaunches: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("parked_launches")
      .addColumn("delivery_id", "text", (c) => c.primaryKey())
      .addColumn("tenant_id", "text", (c) => c.notNull())
      .addColumn("webhook_id", "text", (c) => c.notNull())
      .addColumn("bot_id", "text", (c) => c.notNull())
      .addColumn("subject_id", "text", (c) => c.notNull())
      .addColumn("event_ms", "bigint", (c) => c.notNull())
      .addColumn("arrived_at", "bigint", (c) => c.notNull())
      .addColumn("first_parked_at", "bigint", (c) => c.notNull())
      .addColumn("fire_at", "bigint", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("lease_until", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("plan", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("parked_launches_subject").unique().on("parked_launches").columns(["webhook_id", "bot_id", "subject_id"]).execute();
    await db.schema.createIndex("parked_launches_due").on("parked_launches").column("fire_at").execute();
  },
};
