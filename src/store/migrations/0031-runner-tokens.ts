import type { Kysely, Migration } from "kysely";

/**
 * Runners that reach the service over HTTP: their tokens (salted hash and fingerprint only), each
 * in the platform's pool or an org's; which pool an org's runs go to; which runner claimed an attempt.
 */
export const m0031RunnerTokens: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("runner_tokens")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("pool", "text", (c) => c.notNull())
      .addColumn("org_id", "text", (c) => c.references("orgs.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("fingerprint", "text", (c) => c.notNull().unique())
      .addColumn("hash", "text", (c) => c.notNull())
      .addColumn("last4", "text", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("rotated_at", "bigint")
      .addColumn("last_seen_at", "bigint")
      .addColumn("revoked_at", "bigint")
      .execute();
    await db.schema.createIndex("runner_tokens_org").on("runner_tokens").columns(["org_id", "created_at"]).execute();
    await db.schema
      .alterTable("orgs")
      .addColumn("runner_pool", "text", (c) => c.notNull().defaultTo("platform"))
      .execute();
    await db.schema.alterTable("run_attempts").addColumn("runner_id", "text").execute();
  },
};
