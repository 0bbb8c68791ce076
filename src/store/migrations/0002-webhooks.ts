import type { Kysely, Migration } from "kysely";

const LIST = "[]";
const MAP = "{}";

/** Webhook configs, the delivery log, stored API keys and workflow secrets, org bots. */
export const m0002Webhooks: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("webhooks")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("tenant_id", "text", (c) => c.notNull().references("teams.id"))
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("sign_mode", "text", (c) => c.notNull())
      .addColumn("rate", "double precision", (c) => c.notNull().defaultTo(1))
      .addColumn("burst", "integer", (c) => c.notNull().defaultTo(10))
      .addColumn("monthly_call_limit", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("event_allowlist", "text", (c) => c.notNull().defaultTo(LIST))
      .addColumn("label_allowlist", "text", (c) => c.notNull().defaultTo(LIST))
      .addColumn("hold_labels", "text", (c) => c.notNull().defaultTo(LIST))
      .addColumn("project_allowlist", "text", (c) => c.notNull().defaultTo(LIST))
      .addColumn("author_allowlist", "text", (c) => c.notNull().defaultTo(LIST))
      .addColumn("bot_ids", "text", (c) => c.notNull().defaultTo(LIST))
      .addColumn("wildcard_bots", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("default_bot_id", "text")
      .addColumn("bot_rules", "text")
      .addColumn("launch_vars", "text", (c) => c.notNull().defaultTo(MAP))
      .addColumn("operator_launch_vars", "text", (c) => c.notNull().defaultTo(MAP))
      .addColumn("key_overrides", "text", (c) => c.notNull().defaultTo(MAP))
      .addColumn("secret_overrides", "text", (c) => c.notNull().defaultTo(MAP))
      .addColumn("review_request_logins", "text", (c) => c.notNull().defaultTo(LIST))
      .addColumn("review_on_sync", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("overlap", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("retry_usage_window", "integer")
      .addColumn("retry_max_attempts", "integer")
      .addColumn("retry_max_wait", "bigint")
      .addColumn("retry_jitter", "double precision")
      .addColumn("forge_base_url", "text")
      .addColumn("forge_token", "text")
      .addColumn("authorized_repliers", "text", (c) => c.notNull().defaultTo(LIST))
      .addColumn("min_replier_role", "text", (c) => c.notNull().defaultTo("developer"))
      .addColumn("branch_improve_as_pr", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("auto_implement_on_open", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("provisioned_by", "text")
      .addColumn("token_hash", "text", (c) => c.notNull())
      .addColumn("token_fingerprint", "text", (c) => c.notNull())
      .addColumn("token_last4", "text", (c) => c.notNull())
      .addColumn("sealed_key_id", "text")
      .addColumn("sealed_blob", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("webhooks_tenant").on("webhooks").column("tenant_id").execute();

    // No foreign key to webhooks: delivery rows are kept for audit after their webhook is deleted.
    await db.schema
      .createTable("webhook_deliveries")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("tenant_id", "text", (c) => c.notNull())
      .addColumn("webhook_id", "text", (c) => c.notNull())
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("idempotency_key", "text", (c) => c.notNull())
      .addColumn("payload_sha256", "text")
      .addColumn("event_kind", "text")
      .addColumn("event_action", "text")
      .addColumn("project_path", "text")
      .addColumn("subject_id", "text")
      .addColumn("subject_sha", "text")
      .addColumn("parent_subject_id", "text")
      .addColumn("source_ip", "text")
      .addColumn("bot_id", "text")
      .addColumn("run_id", "text")
      .addColumn("reason", "text")
      .addColumn("denial_reason", "text")
      .addColumn("forge_delivery_id", "text")
      .addColumn("launched_at", "bigint")
      .addColumn("failed_at", "bigint")
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("webhook_deliveries_idem").on("webhook_deliveries").columns(["tenant_id", "idempotency_key"]).unique().execute();
    await db.schema.createIndex("webhook_deliveries_recent").on("webhook_deliveries").columns(["webhook_id", "created_at"]).execute();

    await db.schema
      .createTable("api_keys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("org_id", "text", (c) => c.notNull().references("orgs.id"))
      .addColumn("team_id", "text", (c) => c.references("teams.id"))
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("sealed_key_id", "text", (c) => c.notNull())
      .addColumn("sealed_blob", "text", (c) => c.notNull())
      .addColumn("last4", "text", (c) => c.notNull())
      .addColumn("fingerprint", "text", (c) => c.notNull())
      .addColumn("created_by", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("api_keys_org").on("api_keys").column("org_id").execute();
    await db.schema.createIndex("api_keys_team").on("api_keys").column("team_id").execute();

    await db.schema
      .createTable("workflow_secrets")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("org_id", "text", (c) => c.notNull().references("orgs.id"))
      .addColumn("team_id", "text", (c) => c.notNull().references("teams.id"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("sealed_key_id", "text", (c) => c.notNull())
      .addColumn("sealed_blob", "text", (c) => c.notNull())
      .addColumn("last4", "text", (c) => c.notNull())
      .addColumn("fingerprint", "text", (c) => c.notNull())
      .addColumn("created_by", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("workflow_secrets_team_name").on("workflow_secrets").columns(["team_id", "name"]).unique().execute();

    await db.schema
      .createTable("org_bots")
      .addColumn("org_id", "text", (c) => c.notNull().references("orgs.id"))
      .addColumn("id", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("created_by", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("org_bots_pk", ["org_id", "id"])
      .execute();
  },
};
