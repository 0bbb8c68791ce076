import { sql, type Kysely, type Migration } from "kysely";

/**
 * A month's runs are counted in one place, `org_run_tallies` (migration 0011), on both
 * databases: the counts kept in `org_usage.runs` (the gate's and SQLite's launches) are folded
 * into it, as slot 0, and the column goes. `org_usage` keeps the month's spend.
 */
export const m0053OneRunCount: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("org_run_tallies")
      .ifNotExists()
      .addColumn("org_id", "text", (c) => c.notNull().references("orgs.id"))
      .addColumn("month", "text", (c) => c.notNull())
      .addColumn("slot", "integer", (c) => c.notNull())
      .addColumn("runs", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("org_run_tallies_pk", ["org_id", "month", "slot"])
      .execute();
    await sql`insert into org_run_tallies (org_id, month, slot, runs)
      select org_id, month, 0, runs from org_usage where runs <> 0
      on conflict (org_id, month, slot) do update set runs = org_run_tallies.runs + excluded.runs`.execute(db);
    await db.schema.alterTable("org_usage").dropColumn("runs").execute();
  },
};
