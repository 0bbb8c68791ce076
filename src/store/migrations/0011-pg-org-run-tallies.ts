import type { Kysely, Migration } from "kysely";

/**
 * An org's monthly run count split across connections, a row per (org, month, slot), so
 * launches of one org seldom wait for each other's commit on one row. Once PostgreSQL's alone,
 * beside `org_usage.runs`; since 0053 the one place a month's runs are counted, on both databases
 * (0053 creates it on a SQLite database this migration ran on before it created it there too).
 */
export const m0011PgOrgRunTallies: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("org_run_tallies")
      .addColumn("org_id", "text", (c) => c.notNull().references("orgs.id"))
      .addColumn("month", "text", (c) => c.notNull())
      .addColumn("slot", "integer", (c) => c.notNull())
      .addColumn("runs", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("org_run_tallies_pk", ["org_id", "month", "slot"])
      .execute();
  },
};
