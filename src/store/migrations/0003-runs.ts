import type { Kysely, Migration } from "kysely";

/** Runs (the queue), attempts, usage events, launch buckets, org usage and the credential ledger. */
export const m0003Runs: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("runs")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("org_id", "text", (c) => c.notNull().references("orgs.id"))
      .addColumn("team_id", "text", (c) => c.notNull().references("teams.id"))
      .addColumn("bot_id", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("vars", "text", (c) => c.notNull())
      .addColumn("repo_url", "text")
      .addColumn("repo_ref", "text")
      .addColumn("project_path", "text")
      .addColumn("connection_id", "text")
      .addColumn("subject_id", "text")
      .addColumn("parent_subject_id", "text")
      .addColumn("webhook_id", "text")
      .addColumn("delivery_id", "text")
      .addColumn("source", "text", (c) => c.notNull())
      .addColumn("actor_user_id", "text")
      .addColumn("actor_kind", "text", (c) => c.notNull())
      .addColumn("attempt", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("metered_attempt", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("metered", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("metered_month", "text")
      .addColumn("failure_code", "text")
      .addColumn("failure_detail", "text")
      .addColumn("cancel_requested", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("claim_token", "text")
      .addColumn("claimed_by", "text")
      .addColumn("lease_expires_at", "bigint")
      .addColumn("queued_at", "bigint", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addColumn("started_at", "bigint")
      .addColumn("finished_at", "bigint")
      .execute();
    await db.schema.createIndex("runs_team_status").on("runs").columns(["team_id", "status"]).execute();
    await db.schema.createIndex("runs_queue").on("runs").columns(["status", "queued_at"]).execute();
    await db.schema.createIndex("runs_lease").on("runs").columns(["status", "lease_expires_at"]).execute();
    await db.schema.createIndex("runs_team_created").on("runs").columns(["team_id", "created_at"]).execute();
    await db.schema.createIndex("runs_subject").on("runs").columns(["team_id", "subject_id"]).execute();
    await db.schema.createIndex("runs_parent_subject").on("runs").columns(["team_id", "parent_subject_id"]).execute();

    await db.schema
      .createTable("run_attempts")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("number", "integer", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("claimed_by", "text")
      .addColumn("started_at", "bigint")
      .addColumn("finished_at", "bigint")
      .addColumn("failure_code", "text")
      .addUniqueConstraint("run_attempts_number", ["run_id", "number"])
      .execute();

    await db.schema
      .createTable("run_usage_events")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("attempt", "integer", (c) => c.notNull())
      .addColumn("report_id", "text", (c) => c.notNull())
      .addColumn("org_id", "text", (c) => c.notNull())
      .addColumn("team_id", "text", (c) => c.notNull())
      .addColumn("month", "text", (c) => c.notNull())
      .addColumn("cost_micro", "bigint", (c) => c.notNull())
      .addColumn("input_tokens", "bigint", (c) => c.notNull())
      .addColumn("output_tokens", "bigint", (c) => c.notNull())
      .addColumn("aggregate_tokens", "bigint", (c) => c.notNull())
      .addColumn("fingerprint", "text")
      .addColumn("provider", "text")
      .addColumn("tier", "text")
      .addColumn("repo", "text", (c) => c.notNull())
      .addColumn("amount_type", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addUniqueConstraint("run_usage_events_report", ["run_id", "report_id"])
      .execute();

    await db.schema
      .createTable("team_launch_buckets")
      .addColumn("team_id", "text", (c) => c.primaryKey().references("teams.id"))
      .addColumn("tokens", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("org_usage")
      .addColumn("org_id", "text", (c) => c.notNull().references("orgs.id"))
      .addColumn("month", "text", (c) => c.notNull())
      .addColumn("runs", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("cost_micro", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("input_tokens", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("output_tokens", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("aggregate_tokens", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("org_usage_pk", ["org_id", "month"])
      .execute();

    await db.schema
      .createTable("credential_usage")
      .addColumn("fingerprint", "text", (c) => c.notNull())
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("tier", "text", (c) => c.notNull())
      .addColumn("team_id", "text", (c) => c.notNull())
      .addColumn("month", "text", (c) => c.notNull())
      .addColumn("repo", "text", (c) => c.notNull())
      .addColumn("metered_micro", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("estimated_micro", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("attempts", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("input_tokens", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("output_tokens", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("aggregate_tokens", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("credential_usage_pk", ["fingerprint", "provider", "tier", "team_id", "month", "repo"])
      .execute();
    await db.schema.createIndex("credential_usage_month").on("credential_usage").columns(["month", "tier"]).execute();
  },
};
