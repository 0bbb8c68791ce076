import type { Insertable, Selectable, Updateable } from "kysely";
import type { Db } from "./db.js";
import type { SchedulesTable } from "./schema/launch-surfaces.js";

export type ScheduleRow = Selectable<SchedulesTable>;

export async function insertSchedule(db: Db, row: Insertable<SchedulesTable>): Promise<void> {
  await db.insertInto("schedules").values(row).execute();
}

export async function updateSchedule(db: Db, id: string, patch: Updateable<SchedulesTable>): Promise<void> {
  await db.updateTable("schedules").set(patch).where("id", "=", id).execute();
}

export async function deleteSchedule(db: Db, id: string): Promise<void> {
  await db.deleteFrom("schedules").where("id", "=", id).execute();
}

export function findSchedule(db: Db, teamId: string, id: string): Promise<ScheduleRow | undefined> {
  return db.selectFrom("schedules").selectAll().where("id", "=", id).where("team_id", "=", teamId).executeTakeFirst();
}

export function listTeamSchedules(db: Db, teamId: string): Promise<ScheduleRow[]> {
  return db.selectFrom("schedules").selectAll().where("team_id", "=", teamId).orderBy("name").execute();
}

/** Enabled schedules whose next occurrence is due, oldest first. */
export function dueSchedules(db: Db, now: number, limit: number): Promise<ScheduleRow[]> {
  return db.selectFrom("schedules").selectAll().where("enabled", "=", 1).where("next_run_at", "<=", now).orderBy("next_run_at").limit(limit).execute();
}

/**
 * Moves a schedule past the occurrence `due` to `next`, with the outcome of that occurrence; false
 * when another replica (or an edit) moved it first. Run inside the launch's transaction, so exactly
 * one launch per occurrence commits.
 */
export async function advanceSchedule(
  db: Db,
  id: string,
  due: number,
  next: number | null,
  outcome: Pick<SchedulesTable, "last_error" | "last_error_at"> & Partial<Pick<SchedulesTable, "last_run_at" | "last_run_id">>,
): Promise<boolean> {
  const r = await db
    .updateTable("schedules")
    .set({ next_run_at: next, ...outcome })
    .where("id", "=", id)
    .where("next_run_at", "=", due)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
