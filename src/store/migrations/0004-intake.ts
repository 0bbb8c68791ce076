import type { Kysely, Migration } from "kysely";

export const m0004Intake: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("webhook_buckets")
      .addColumn("webhook_id", "text", (c) => c.primaryKey())
      .addColumn("tokens", "double precision", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("webhook_call_counters")
      .addColumn("scope", "text", (c) => c.notNull())
      .addColumn("month", "text", (c) => c.notNull())
      .addColumn("calls", "bigint", (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint("webhook_call_counters_pk", ["scope", "month"])
      .execute();
  },
};
