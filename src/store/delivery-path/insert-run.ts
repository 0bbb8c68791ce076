import type { Insertable } from "kysely";
import { compiledInsert } from "../compiled.js";
import type { Db } from "../db.js";
import { NEW_RUN, type RunsTable } from "../schema/runs.js";

const insertRunRow = compiledInsert<RunsTable>("runs", NEW_RUN);

/** Publishes a run: the runs table is the queue. Hand-written: every launched delivery writes one. */
export async function insertRun(db: Db, row: Insertable<RunsTable>): Promise<void> {
  await insertRunRow(db, row);
}
