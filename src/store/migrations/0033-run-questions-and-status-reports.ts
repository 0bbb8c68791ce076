import type { Kysely, Migration } from "kysely";

/**
 * A run's question (JSON `{text, choices?}`) while it waits for a person, the answer its next
 * attempt is handed, and its bot's one-line summary; whether a webhook's runs are reported on
 * the forge (null: on for provisioned repositories); and the outbox of those reports: per run
 * the state the forge should show and the one it last accepted.
 */
export const m0033RunQuestionsAndStatusReports: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable("runs").addColumn("question", "text").execute();
    await db.schema.alterTable("runs").addColumn("answer", "text").execute();
    await db.schema.alterTable("runs").addColumn("summary", "text").execute();
    await db.schema.alterTable("webhooks").addColumn("report_status", "integer").execute();
    await db.schema
      .createTable("run_status_reports")
      .addColumn("run_id", "text", (c) => c.primaryKey())
      .addColumn("webhook_id", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull())
      .addColumn("reported_key", "text")
      .addColumn("check_run_id", "text")
      .addColumn("tries", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("due_at", "bigint")
      .addColumn("last_error", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("run_status_reports_due").on("run_status_reports").column("due_at").execute();
  },
};
