import type { Kysely, Migration } from "kysely";

export const m0001Tenancy: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("orgs")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull().defaultTo("active"))
      .addColumn("monthly_cost_cap_micro", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("monthly_run_quota", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("memory_quota_bytes", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("credential_audience", "text", (c) => c.notNull().defaultTo("all"))
      .addColumn("monthly_webhook_calls", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("teams")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("org_id", "text", (c) => c.notNull().references("orgs.id"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull().defaultTo("active"))
      .addColumn("max_concurrent_runs", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("launch_rate_per_min", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("teams_org").on("teams").column("org_id").execute();

    await db.schema
      .createTable("users")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("login", "text", (c) => c.notNull().unique())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("super_admin", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("org_members")
      .addColumn("org_id", "text", (c) => c.notNull().references("orgs.id"))
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
      .addColumn("role", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("org_members_pk", ["org_id", "user_id"])
      .execute();
    await db.schema.createIndex("org_members_user").on("org_members").column("user_id").execute();

    await db.schema
      .createTable("team_members")
      .addColumn("team_id", "text", (c) => c.notNull().references("teams.id"))
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
      .addColumn("role", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("team_members_pk", ["team_id", "user_id"])
      .execute();
    await db.schema.createIndex("team_members_user").on("team_members").column("user_id").execute();

    await db.schema
      .createTable("access_tokens")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("fingerprint", "text", (c) => c.notNull().unique())
      .addColumn("hash", "text", (c) => c.notNull())
      .addColumn("last4", "text", (c) => c.notNull())
      .addColumn("source", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint")
      .addColumn("last_used_at", "bigint")
      .addColumn("revoked_at", "bigint")
      .execute();
    await db.schema.createIndex("access_tokens_user").on("access_tokens").column("user_id").execute();

    await db.schema
      .createTable("audit_log")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("at", "bigint", (c) => c.notNull())
      .addColumn("actor_id", "text")
      .addColumn("action", "text", (c) => c.notNull())
      .addColumn("target_type", "text", (c) => c.notNull())
      .addColumn("target_id", "text", (c) => c.notNull())
      .addColumn("org_id", "text")
      .addColumn("team_id", "text")
      .addColumn("detail", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("audit_log_target").on("audit_log").columns(["target_type", "target_id"]).execute();
  },
};
