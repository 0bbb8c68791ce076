import type { Kysely, Migration } from "kysely";

/**
 * Each attempt's output: its lines in chunks at their byte offset in all the attempt printed
 * (the head and the tail are kept, the middle dropped past the bounds), and per attempt how much
 * was printed, kept in the tail and dropped.
 */
export const m0032RunLogs: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("run_logs")
      .addColumn("run_id", "text", (c) => c.notNull())
      .addColumn("attempt", "integer", (c) => c.notNull())
      .addColumn("produced_bytes", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("tail_bytes", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("dropped_bytes", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("run_logs_pk", ["run_id", "attempt"])
      .execute();
    await db.schema.createIndex("run_logs_updated").on("run_logs").column("updated_at").execute();
    await db.schema
      .createTable("run_log_chunks")
      .addColumn("run_id", "text", (c) => c.notNull())
      .addColumn("attempt", "integer", (c) => c.notNull())
      .addColumn("start", "bigint", (c) => c.notNull())
      .addColumn("bytes", "integer", (c) => c.notNull())
      .addColumn("stream", "text", (c) => c.notNull())
      .addColumn("text", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("run_log_chunks_pk", ["run_id", "attempt", "start"])
      .execute();
  },
};
