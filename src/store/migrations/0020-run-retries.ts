import type { Kysely, Migration } from "kysely";

/**
 * Usage-window retries and the dead-letter queue: a run's armed retry and how many it had, how
 * often its runner was lost, and when (and why) it was parked; the org's layer of the retry policy.
 */
export const m0020RunRetries: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable("runs").addColumn("retry_at", "bigint").execute();
    await db.schema
      .alterTable("runs")
      .addColumn("auto_retries", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable("runs")
      .addColumn("runner_losses", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable("runs").addColumn("dead_lettered_at", "bigint").execute();
    await db.schema.alterTable("runs").addColumn("dead_letter_reason", "text").execute();
    await db.schema.createIndex("runs_retry_due").on("runs").column("retry_at").execute();
    await db.schema.createIndex("runs_dead_lettered").on("runs").columns(["team_id", "dead_lettered_at"]).execute();
    await db.schema.alterTable("orgs").addColumn("retry_usage_window", "integer").execute();
    await db.schema.alterTable("orgs").addColumn("retry_max_attempts", "integer").execute();
    await db.schema.alterTable("orgs").addColumn("retry_max_wait", "bigint").execute();
    await db.schema.alterTable("orgs").addColumn("retry_jitter", "double precision").execute();
  },
};
