import type { Kysely, Migration } from "kysely";

/**
 * Deliveries' requests kept as received, sealed (a webhook's `keep_payloads`, off by default):
 * one kept request per request, named by every delivery row it gave.
 */
export const m0037KeptRequests: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable("webhooks")
      .addColumn("keep_payloads", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable("kept_requests")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("tenant_id", "text", (c) => c.notNull())
      .addColumn("webhook_id", "text", (c) => c.notNull())
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("key_id", "text", (c) => c.notNull())
      // The headers as JSON, token headers removed; sealed.
      .addColumn("headers", "text", (c) => c.notNull())
      // The body gzipped, then sealed; null when it was larger than the cap.
      .addColumn("body", "text")
      .addColumn("body_bytes", "bigint", (c) => c.notNull())
      .addColumn("source_ip", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("kept_requests_created").on("kept_requests").column("created_at").execute();
    await db.schema
      .createTable("kept_request_rows")
      .addColumn("delivery_id", "text", (c) => c.primaryKey())
      .addColumn("request_id", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("kept_request_rows_request").on("kept_request_rows").column("request_id").execute();
  },
};
