import type { Kysely, Migration } from "kysely";

/** Forge connections of a team and the repositories provisioned through them. */
export const m0024ForgeConnections: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("forge_connections")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("team_id", "text", (c) => c.notNull().references("teams.id"))
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("base_url", "text")
      .addColumn("auth", "text", (c) => c.notNull().defaultTo("token"))
      .addColumn("sealed_key_id", "text", (c) => c.notNull())
      .addColumn("sealed_blob", "text", (c) => c.notNull())
      .addColumn("token_last4", "text", (c) => c.notNull())
      .addColumn("bot_login", "text", (c) => c.notNull())
      .addColumn("bot_user_id", "bigint", (c) => c.notNull())
      .addColumn("webhook_base_url", "text")
      .addColumn("created_by", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("forge_connections_team").on("forge_connections").columns(["team_id", "created_at"]).execute();
    await db.schema
      .createTable("repo_bots")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("connection_id", "text", (c) => c.notNull().references("forge_connections.id"))
      .addColumn("team_id", "text", (c) => c.notNull().references("teams.id"))
      .addColumn("repo", "text", (c) => c.notNull())
      .addColumn("hook_id", "text")
      .addColumn("hook_url", "text")
      .addColumn("gate_context", "text")
      .addColumn("auto_fix_on_gate_failure", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("writing_until", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    // One provisioning per repository and connection: a retried first provision finds the row.
    await db.schema.createIndex("repo_bots_repo").unique().on("repo_bots").columns(["connection_id", "repo"]).execute();
  },
};
