import type { Kysely, Migration } from "kysely";

/**
 * A provisioned repository's security-read org token: the workflow secret that holds it (handed
 * to its webhook's runs), the forge's id for it, when it expires and when its successor is due.
 */
export const m0030RepoBotSecurityRead: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable("repo_bots").addColumn("security_secret_id", "text").execute();
    await db.schema.alterTable("repo_bots").addColumn("security_forge_token_id", "text").execute();
    await db.schema.alterTable("repo_bots").addColumn("security_expires_at", "bigint").execute();
    await db.schema.alterTable("repo_bots").addColumn("security_renew_at", "bigint").execute();
    await db.schema.createIndex("repo_bots_security_renew").on("repo_bots").column("security_renew_at").execute();
  },
};
