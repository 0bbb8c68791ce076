import type { CreateTableBuilder, Kysely, Migration } from "kysely";

// Migrations build untyped tables (Kysely<any>).
type Table = CreateTableBuilder<any, any>;

/** What a schedule and a subscription launch, in the same columns. */
const launchTarget = (t: Table): Table =>
  t
    .addColumn("bot_id", "text", (c) => c.notNull())
    .addColumn("vars", "text", (c) => c.notNull())
    .addColumn("repo_url", "text")
    .addColumn("repo_ref", "text")
    .addColumn("project_path", "text")
    .addColumn("enabled", "integer", (c) => c.notNull());

/** Their last outcome and their times. */
const lastOutcome = (t: Table): Table =>
  t
    .addColumn("last_error", "text")
    .addColumn("last_error_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull());

/** Schedules and custom-event trigger subscriptions, two launch surfaces of a team. */
export const m0019SchedulesAndTriggers: Migration = {
  async up(db: Kysely<any>) {
    let schedules = db.schema
      .createTable("schedules")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("team_id", "text", (c) => c.notNull().references("teams.id"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("cron", "text", (c) => c.notNull())
      .addColumn("timezone", "text", (c) => c.notNull());
    schedules = launchTarget(schedules).addColumn("next_run_at", "bigint").addColumn("last_run_at", "bigint").addColumn("last_run_id", "text");
    await lastOutcome(schedules).addUniqueConstraint("schedules_team_name", ["team_id", "name"]).execute();
    await db.schema.createIndex("schedules_due").on("schedules").column("next_run_at").execute();

    let subscriptions = db.schema
      .createTable("trigger_subscriptions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("team_id", "text", (c) => c.notNull().references("teams.id"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("event", "text", (c) => c.notNull())
      .addColumn("filter", "text", (c) => c.notNull());
    subscriptions = launchTarget(subscriptions).addColumn("last_run_id", "text").addColumn("last_launched_at", "bigint");
    await lastOutcome(subscriptions).addUniqueConstraint("trigger_subscriptions_team_name", ["team_id", "name"]).execute();
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
