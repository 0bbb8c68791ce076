import { Compiled } from "../compiled.js";
import type { Db } from "../db.js";
import { dialect } from "../dialect.js";

/** SQLite: one writer at a time, so one tally row (slot 0) per org and month. */
const upsertTally = new Compiled(
  `insert into "org_run_tallies" ("org_id", "month", "slot", "runs") values (?, ?, 0, ?)
   on conflict ("org_id", "month", "slot") do update set "runs" = "org_run_tallies"."runs" + excluded."runs"`,
);

/** PostgreSQL: the stored function deliver_webhook_calls also calls (store/postgres/add-org-runs.sql). */
const callAddOrgRuns = new Compiled(`select add_org_runs(array[?::text], array[?::text], ?::bigint)`);

/**
 * Adds `delta` runs to the org's month (-1: a launch's hand-back): the one write of the month's
 * run count (`org_run_tallies`, read by findOrgRuns), by the gate's transaction and SQLite's
 * one-commit launch; PostgreSQL's batch procedure calls the same stored function. Hand-written:
 * every launch counts one.
 */
export async function addOrgRuns(db: Db, orgId: string, month: string, delta: number): Promise<void> {
  await (dialect(db).storedRoutines ? callAddOrgRuns : upsertTally).run(db, [orgId, month, delta]);
}
