import { type Selectable, sql } from "kysely";
import type { Db } from "./db.js";
import type { RunStatusReportsTable } from "./schema/runs.js";

export type StatusReportRow = Selectable<RunStatusReportsTable>;

/** A run launched by a forge delivery for a commit, as the status reporter follows it. */
export interface DeliveredRunChange {
  run_id: string;
  status: string;
  summary: string | null;
  question: string | null;
  failure_code: string | null;
  retry_at: number | null;
  webhook_id: string;
  updated_at: number;
  /** The run's outbox row, when it has one. */
  report_state: string | null;
  report_description: string | null;
  reported_key: string | null;
  /** The run's version the outbox row last saw. */
  report_seen_at: number | null;
}

/**
 * Runs launched by a delivery that named a commit, changed at or after `since` and not seen
 * by the outbox in a later version, oldest change first.
 */
export async function deliveredRunChanges(db: Db, since: number, limit: number): Promise<DeliveredRunChange[]> {
  const rows = await db
    .selectFrom("runs as r")
    .innerJoin("webhook_deliveries as d", "d.id", "r.delivery_id")
    .leftJoin("run_status_reports as s", "s.run_id", "r.id")
    .select([
      "r.id as run_id",
      "r.status",
      "r.summary",
      "r.question",
      "r.failure_code",
      "r.retry_at",
      "r.webhook_id",
      "r.updated_at",
      "s.state as report_state",
      "s.description as report_description",
      "s.reported_key",
      "s.updated_at as report_seen_at",
    ])
    .where("r.updated_at", ">=", since)
    .where("r.webhook_id", "is not", null)
    .where("d.subject_sha", "is not", null)
    // At or after: two changes in the same millisecond are told apart by the state they leave, not the time.
    .where((eb) => eb.or([eb("s.run_id", "is", null), eb("r.updated_at", ">=", eb.ref("s.updated_at"))]))
    .orderBy("r.updated_at")
    .orderBy("r.id")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    ...r,
    webhook_id: r.webhook_id!,
    updated_at: Number(r.updated_at),
    retry_at: r.retry_at === null ? null : Number(r.retry_at),
    report_seen_at: r.report_seen_at === null ? null : Number(r.report_seen_at),
  }));
}

/**
 * Writes the state the forge should show for a run as of its version `runUpdatedAt` (the
 * row's updated_at), to be sent at `now`. The row decides, not the caller's earlier read (a
 * second replica may have written or sent it since): the state it holds already keeps its
 * tries and next send, a state the forge shows already is not sent again, and an older version
 * never overwrites a newer one.
 */
export async function putStatusReport(
  db: Db,
  row: { runId: string; webhookId: string; state: string; description: string; runUpdatedAt: number; now: number },
): Promise<void> {
  const same = sql<boolean>`run_status_reports.state = excluded.state and run_status_reports.description = excluded.description`;
  await db
    .insertInto("run_status_reports")
    .values({
      run_id: row.runId,
      webhook_id: row.webhookId,
      state: row.state,
      description: row.description,
      reported_key: null,
      check_run_id: null,
      tries: 0,
      due_at: row.now,
      last_error: null,
      created_at: row.now,
      updated_at: row.runUpdatedAt,
    })
    .onConflict((oc) =>
      oc
        .column("run_id")
        .doUpdateSet({
          state: sql`excluded.state`,
          description: sql`excluded.description`,
          updated_at: sql`excluded.updated_at`,
          due_at: sql`case when ${same} then run_status_reports.due_at
            when run_status_reports.reported_key = excluded.state || '|' || excluded.description then null
            else excluded.due_at end`,
          tries: sql`case when ${same} then run_status_reports.tries else 0 end`,
          last_error: sql`case when ${same} then run_status_reports.last_error else null end`,
        })
        .where(sql<boolean>`run_status_reports.updated_at <= excluded.updated_at`),
    )
    .execute();
}

/** The outbox rows due by `now`, with the commit and repository their run's delivery named. */
export function dueStatusReports(db: Db, now: number, limit: number) {
  return db
    .selectFrom("run_status_reports as s")
    .innerJoin("runs as r", "r.id", "s.run_id")
    .innerJoin("webhook_deliveries as d", "d.id", "r.delivery_id")
    .select([
      "s.run_id",
      "s.webhook_id",
      "s.state",
      "s.description",
      "s.reported_key",
      "s.tries",
      "s.due_at",
      "s.check_run_id",
      "r.bot_id",
      "r.project_path as run_project_path",
      "d.project_path",
      "d.subject_sha",
    ])
    .where("s.due_at", "<=", now)
    .orderBy("s.due_at")
    .limit(limit)
    .execute();
}

/**
 * Takes a due row for one sender until `until` (another replica's pass skips it meanwhile):
 * false when another took it first or the row moved.
 */
export async function takeStatusReport(db: Db, runId: string, dueAt: number, until: number): Promise<boolean> {
  const r = await db.updateTable("run_status_reports").set({ due_at: until }).where("run_id", "=", runId).where("due_at", "=", dueAt).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The forge shows `key` now; cleared unless the row was given a newer state meanwhile. */
export async function markStatusReported(db: Db, runId: string, key: { state: string; description: string }, checkRunId: string | null): Promise<void> {
  await db
    .updateTable("run_status_reports")
    .set({ reported_key: `${key.state}|${key.description}`, check_run_id: checkRunId, due_at: null, tries: 0, last_error: null })
    .where("run_id", "=", runId)
    .where("state", "=", key.state)
    .where("description", "=", key.description)
    .execute();
}

/** A send that failed: tried again at `dueAt`, or never (null) once the reporter gives up. */
export async function markStatusFailed(
  db: Db,
  runId: string,
  key: { state: string; description: string },
  failure: { tries: number; dueAt: number | null; error: string },
): Promise<void> {
  await db
    .updateTable("run_status_reports")
    .set({ tries: failure.tries, due_at: failure.dueAt, last_error: failure.error.slice(0, 500) })
    .where("run_id", "=", runId)
    .where("state", "=", key.state)
    .where("description", "=", key.description)
    .execute();
}

export function findStatusReport(db: Db, runId: string): Promise<StatusReportRow | undefined> {
  return db.selectFrom("run_status_reports").selectAll().where("run_id", "=", runId).executeTakeFirst();
}
