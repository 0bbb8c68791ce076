import type { Kysely, Migration } from "kysely";

/** Schedules and custom-event trigger subscriptions, two launch surfaces of a team. */
export const m0019SchedulesAndTriggers: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("schedules")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("team_id", "text", (c) => c.notNull().references("teams.id"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("cron", "text", (c) => c.notNull())
      .addColumn("timezone", "text", (c) => c.notNull())
      .addColumn("bot_id", "text", (c) => c.notNull())
      .addColumn("vars", "text", (c) => c.notNull())
      .addColumn("repo_url", "text")
      .addColumn("repo_ref", "text")
      .addColumn("project_path", "text")
      .addColumn("enabled", "integer", (c) => c.notNull())
      .addColumn("next_run_at", "bigint")
      .addColumn("last_run_at", "bigint")
      .addColumn("last_run_id", "text")
      .addColumn("last_error", "text")
      .addColumn("last_error_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addUniqueConstraint("schedules_team_name", ["team_id", "name"])
      .execute();
    await db.schema.createIndex("schedules_due").on("schedules").column("next_run_at").execute();

    await db.schema
      .createTable("trigger_subscriptions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("team_id", "text", (c) => c.notNull().references("teams.id"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("event", "text", (c) => c.notNull())
      .addColumn("filter", "text", (c) => c.notNull())
      .addColumn("bot_id", "text", (c) => c.notNull())
      .addColumn("vars", "text", (c) => c.notNull())
      .addColumn("repo_url", "text")
      .addColumn("repo_ref", "text")
      .addColumn("project_path", "text")
      .addColumn("enabled", "integer", (c) => c.notNull())
      .addColumn("last_run_id", "text")
      .addColumn("last_launched_at", "bigint")
      .addColumn("last_error", "text")
      .addColumn("last_error_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addUniqueConstraint("trigger_subscriptions_team_name", ["team_id", "name"])
      .execute();
    await db.schema.createIndex("trigger_subscriptions_event").on("trigger_subscriptions").columns(["team_id", "event"]).execute();

    await db.schema
      .createTable("trigger_launches")
      .addColumn("team_id", "text", (c) => c.notNull())
      .addColumn("idempotency_key", "text", (c) => c.notNull())
      .addColumn("subscription_id", "text", (c) => c.notNull())
      .addColumn("run_id", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("trigger_launches_pk", ["team_id", "idempotency_key", "subscription_id"])
      .execute();
  },
};
