import type { Kysely, Migration } from "kysely";

/**
 * Forge tokens the service minted and no longer hands out (a renewed security-read token's
 * predecessor, an installation token minted for one attempt), sealed: each is revoked on its forge
 * once no running attempt holds it. Attempts are found by the fingerprint they were handed.
 */
export const m0051ForgeTokensToRevoke: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("forge_tokens_to_revoke")
      // SHA-256 hex of the token: the fingerprint attempt_credentials records.
      .addColumn("fingerprint", "text", (c) => c.primaryKey())
      .addColumn("team_id", "text", (c) => c.notNull())
      .addColumn("connection_id", "text", (c) => c.notNull())
      .addColumn("repo", "text", (c) => c.notNull())
      // GitLab's access token id; null where the token itself is the handle (GitHub).
      .addColumn("forge_token_id", "text")
      .addColumn("sealed_key_id", "text", (c) => c.notNull())
      .addColumn("sealed_blob", "text", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      // Not revoked before this (epoch ms); a pass that takes the row moves it on by its lease.
      .addColumn("not_before", "bigint", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("forge_tokens_to_revoke_due").on("forge_tokens_to_revoke").column("not_before").execute();
    await db.schema.createIndex("attempt_credentials_fingerprint").on("attempt_credentials").column("fingerprint").execute();
  },
};
