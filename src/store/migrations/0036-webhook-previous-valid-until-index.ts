import type { Kysely, Migration } from "kysely";

/** The sweep of expired previous webhook secrets finds its rows by `previous_valid_until`. */
export const m0036WebhookPreviousValidUntilIndex: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex("webhooks_previous_valid_until").on("webhooks").column("previous_valid_until").execute();
  },
};
