import type { Kysely, Migration } from "kysely";

/** The team's board: whether its issue lanes keep cards (track) or hand the work to cards (coordinate); off by default. */
export const m0039TeamBoardMode: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable("teams")
      .addColumn("board_mode", "text", (c) => c.notNull().defaultTo("off"))
      .execute();
  },
};
