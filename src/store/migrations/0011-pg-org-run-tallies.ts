import type { Kysely, Migration } from "kysely";
import { dialect } from "../dialect.js";

/**
 * PostgreSQL only: an org's monthly run count, split across connections for launches that no
 * limit locks (src/store/postgres/deliver-webhook-calls.sql), so launches of one org do not wait for
 * each other's commit on one `org_usage` row. A row per (org, month, slot), the slot picked by
 * the backend's process id; the month's run count is `org_usage.runs` plus its tallies.
 */
export const m0011PgOrgRunTallies: Migration = {
  async up(db: Kysely<any>) {
    if (!dialect(db).runTallies) return;
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
