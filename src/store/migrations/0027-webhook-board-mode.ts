import type { Kysely, Migration } from "kysely";

/** Whether a webhook's issue lanes use the team's board: off, track (a card follows each launch) or coordinate (the card is the work). */
export const m0027WebhookBoardMode: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable("webhooks")
      .addColumn("board_mode", "text", (c) => c.notNull().defaultTo("off"))
      .execute();
  },
};
