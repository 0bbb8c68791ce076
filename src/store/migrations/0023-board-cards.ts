import type { Kysely, Migration } from "kysely";

/** A team's board: cards of work, each launched by the board dispatcher when ready. */
export const m0023BoardCards: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("board_cards")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("team_id", "text", (c) => c.notNull().references("teams.id"))
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("body", "text", (c) => c.notNull())
      .addColumn("labels", "text", (c) => c.notNull())
      .addColumn("column", "text", (c) => c.notNull())
      .addColumn("provenance", "text", (c) => c.notNull())
      .addColumn("source_issue_ref", "text")
      .addColumn("bot_id", "text", (c) => c.notNull())
      .addColumn("vars", "text", (c) => c.notNull())
      .addColumn("repo_url", "text")
      .addColumn("repo_ref", "text")
      .addColumn("project_path", "text")
      .addColumn("webhook_id", "text")
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("next_attempt_at", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("lease_until", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("run_id", "text")
      .addColumn("last_error", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    // One card per issue and team: the label lane's replays find it.
    await db.schema.createIndex("board_cards_issue").unique().on("board_cards").columns(["team_id", "source_issue_ref"]).execute();
    await db.schema.createIndex("board_cards_column").on("board_cards").columns(["column", "next_attempt_at"]).execute();
  },
};
