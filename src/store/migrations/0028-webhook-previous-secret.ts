import type { Kysely, Migration } from "kysely";

/**
 * The secret a rotation with an overlap replaced, and until when (epoch ms) it still proves
 * deliveries: its salted hash, and its sealed plaintext for HMAC configs. All null without one.
 */
export const m0028WebhookPreviousSecret: Migration = {
  async up(db: Kysely<any>) {
    // SQLite adds one column per statement.
    for (const [name, type] of [
      ["previous_token_hash", "text"],
      ["previous_sealed_key_id", "text"],
      ["previous_sealed_blob", "text"],
      ["previous_valid_until", "bigint"],
    ] as const) {
      await db.schema.alterTable("webhooks").addColumn(name, type).execute();
    }
  },
};
