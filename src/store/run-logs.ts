import type { Selectable } from "kysely";
import type { Db } from "./db.js";
import type { RunLogChunksTable, RunLogsTable, RunStatus } from "./schema/runs.js";

export type RunLogRow = Selectable<RunLogsTable>;
export type RunLogChunkRow = Selectable<RunLogChunksTable>;

/** What bounds an attempt's kept output: the first `headBytes` and the last `tailBytes` of it. */
export interface LogBounds {
  headBytes: number;
  tailBytes: number;
}

/** A piece of output to append, with its UTF-8 length. */
export interface LogPiece {
  stream: "stdout" | "stderr";
  text: string;
  bytes: number;
}

/** Pages of tail chunks looked at when the tail is cut to its bound. */
const CUT_PAGE = 500;

/** The pieces' rows from byte offset `at` on, and how many of their bytes fall past the head (into the tail). */
function placePieces(runId: string, attempt: number, pieces: LogPiece[], at: number, headBytes: number): { rows: RunLogChunkRow[]; tailAdded: number } {
  const rows: RunLogChunkRow[] = [];
  let tailAdded = 0;
  for (const p of pieces) {
    if (p.bytes === 0) continue;
    rows.push({ run_id: runId, attempt, start: at, bytes: p.bytes, stream: p.stream, text: p.text });
    if (at >= headBytes) tailAdded += p.bytes;
    at += p.bytes;
  }
  return { rows, tailAdded };
}

/**
 * Appends pieces to an attempt's output (call inside a transaction): each is placed at the byte
 * offset after all the attempt printed before it; pieces that start past the head go to the tail,
 * and the tail's oldest pieces are dropped while it holds more than its bound. Returns the
 * attempt's printed length after the append.
 */
export async function appendRunLog(tx: Db, runId: string, attempt: number, pieces: LogPiece[], bounds: LogBounds, now: number): Promise<number> {
  const total = pieces.reduce((n, p) => n + p.bytes, 0);
  await tx
    .insertInto("run_logs")
    .values({ run_id: runId, attempt, produced_bytes: 0, tail_bytes: 0, dropped_bytes: 0, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(["run_id", "attempt"]).doNothing())
    .execute();
  // The update takes the row's lock, so concurrent appends of one attempt get disjoint offsets.
  const row = await tx
    .updateTable("run_logs")
    .set((eb) => ({ produced_bytes: eb("produced_bytes", "+", total), updated_at: now }))
    .where("run_id", "=", runId)
    .where("attempt", "=", attempt)
    .returning(["produced_bytes", "tail_bytes"])
    .executeTakeFirstOrThrow();
  const produced = Number(row.produced_bytes);
  const { rows, tailAdded } = placePieces(runId, attempt, pieces, produced - total, bounds.headBytes);
  let tail = Number(row.tail_bytes) + tailAdded;
  for (let i = 0; i < rows.length; i += CUT_PAGE)
    await tx
      .insertInto("run_log_chunks")
      .values(rows.slice(i, i + CUT_PAGE))
      .execute();
  let dropped = 0;
  while (tail > bounds.tailBytes) {
    const oldest = await tx
      .selectFrom("run_log_chunks")
      .select(["start", "bytes"])
      .where("run_id", "=", runId)
      .where("attempt", "=", attempt)
      .where("start", ">=", bounds.headBytes)
      .orderBy("start")
      .limit(CUT_PAGE)
      .execute();
    if (oldest.length === 0) break;
    let cutBefore: number | undefined;
    for (const c of oldest) {
      if (tail <= bounds.tailBytes) break;
      tail -= Number(c.bytes);
      dropped += Number(c.bytes);
      cutBefore = Number(c.start) + 1;
    }
    if (cutBefore === undefined) break;
    await tx
      .deleteFrom("run_log_chunks")
      .where("run_id", "=", runId)
      .where("attempt", "=", attempt)
      .where("start", ">=", bounds.headBytes)
      .where("start", "<", cutBefore)
      .execute();
  }
  await tx
    .updateTable("run_logs")
    .set((eb) => ({ tail_bytes: tail, dropped_bytes: eb("dropped_bytes", "+", dropped) }))
    .where("run_id", "=", runId)
    .where("attempt", "=", attempt)
    .execute();
  return produced;
}

/** The status of a run's attempt, if it was ever claimed. */
export async function attemptStatus(db: Db, runId: string, attempt: number): Promise<RunStatus | undefined> {
  const row = await db.selectFrom("run_attempts").select("status").where("run_id", "=", runId).where("number", "=", attempt).executeTakeFirst();
  return row?.status;
}

export async function findRunLog(db: Db, runId: string, attempt: number): Promise<RunLogRow | undefined> {
  const row = await db.selectFrom("run_logs").selectAll().where("run_id", "=", runId).where("attempt", "=", attempt).executeTakeFirst();
  return row && { ...row, produced_bytes: Number(row.produced_bytes), tail_bytes: Number(row.tail_bytes), dropped_bytes: Number(row.dropped_bytes) };
}

/** Kept pieces that end after `offset`, in order, until about `maxBytes` are read (at least one). */
export async function readRunLogChunks(db: Db, runId: string, attempt: number, offset: number, maxBytes: number): Promise<RunLogChunkRow[]> {
  // A piece is at most a line's 16 KiB plus its masking; 64 KiB back finds the one that holds `offset`.
  const rows = await db
    .selectFrom("run_log_chunks")
    .selectAll()
    .where("run_id", "=", runId)
    .where("attempt", "=", attempt)
    .where("start", ">", offset - 64 * 1024)
    .where((eb) => eb(eb("start", "+", eb.ref("bytes")), ">", offset))
    .orderBy("start")
    .limit(Math.max(1, Math.ceil(maxBytes / 64)))
    .execute();
  const out: RunLogChunkRow[] = [];
  let bytes = 0;
  for (const r of rows) {
    const c = { ...r, start: Number(r.start), bytes: Number(r.bytes) };
    if (out.length > 0 && bytes + c.bytes > maxBytes) break;
    out.push(c);
    bytes += c.bytes;
  }
  return out;
}

/** Forgets the output of attempts nothing was appended to since `before`; returns how many attempts' logs went. */
export async function deleteRunLogsBefore(db: Db, before: number, limit: number): Promise<number> {
  const stale = await db.selectFrom("run_logs").select(["run_id", "attempt"]).where("updated_at", "<", before).orderBy("updated_at").limit(limit).execute();
  for (const s of stale) await deleteRunLog(db, s.run_id, s.attempt);
  return stale.length;
}

async function deleteRunLog(db: Db, runId: string, attempt: number): Promise<void> {
  await db.deleteFrom("run_log_chunks").where("run_id", "=", runId).where("attempt", "=", attempt).execute();
  await db.deleteFrom("run_logs").where("run_id", "=", runId).where("attempt", "=", attempt).execute();
}

/** Every attempt's output of a run (the run is being deleted). */
export async function deleteRunLogs(db: Db, runId: string): Promise<void> {
  await db.deleteFrom("run_log_chunks").where("run_id", "=", runId).execute();
  await db.deleteFrom("run_logs").where("run_id", "=", runId).execute();
}
