import type { Kysely, Migration } from "kysely";

/**
 * The gate lanes: whether a provisioned repository's review waits for its gate (off by default,
 * so reviews launch on open and push as before), and each pull request's run of automatic fixes
 * that were each followed by another failure of the gate, reset when the gate passes.
 */
export const m0040GateLanes: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable("repo_bots")
      .addColumn("review_after_gate", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable("gate_fix_streaks")
      .addColumn("webhook_id", "text", (c) => c.notNull())
      .addColumn("subject_id", "text", (c) => c.notNull())
      .addColumn("gate", "text", (c) => c.notNull())
      .addColumn("fixes", "integer", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("gate_fix_streaks_pk", ["webhook_id", "subject_id", "gate"])
      .execute();
  },
};
