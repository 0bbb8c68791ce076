import type BetterSqlite3 from "better-sqlite3";
import type { Kysely } from "kysely";
import type { Database } from "../schema/index.js";

type Db = Kysely<Database>;

/** A prepared statement for SQL text, from the connection's statement cache. */
export type Prepare = (sql: string) => BetterSqlite3.Statement;

interface Pending {
  fn: (tx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Enough to amortise a commit; small enough that one batch never holds the lock for long. */
const MAX_BATCH = 128;

/** The handles batches hand their transactions, and the statements those may run directly. */
const batchHandles = new WeakMap<object, Prepare>();

/**
 * The SQLite statements `db` may run without Kysely's executor: only for the handle a batch
 * hands a transaction, which holds the connection for the whole batch, so a statement run
 * directly lands in that transaction's savepoint. Any other handle answers undefined.
 */
export function batchStatements(db: Kysely<any>): Prepare | undefined {
  return batchHandles.get(db);
}

/**
 * Transactions on the one SQLite connection, committed in groups: every transaction asked
 * for while a batch runs (or during the same event-loop turn) joins the next batch, which
 * runs them one after another inside BEGIN IMMEDIATE … COMMIT, each in its own SAVEPOINT.
 * A failing transaction rolls back to its savepoint alone; a caller's promise settles only
 * after the COMMIT that holds its rows, so an answer sent on resolve is durable. Under load
 * the hot pages (counters, indexes) are written to the WAL once per batch, not per request.
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly db: Db,
    private readonly prepare: Prepare,
  ) {}

  run<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    const batch = this.queue.splice(0, MAX_BATCH);
    try {
      // Holding Kysely's connection keeps its other queries out of the open transaction.
      const outcomes = await this.db.connection().execute(async (conn) => {
        batchHandles.set(conn, this.prepare);
        try {
          return await runBatch(conn, this.prepare, batch);
        } finally {
          batchHandles.delete(conn);
        }
      });
      batch.forEach((item, i) => {
        const o = outcomes[i]!;
        if (o.ok) item.resolve(o.value);
        else item.reject(o.error);
      });
    } catch (err) {
      // BEGIN or COMMIT failed: nothing of the batch is stored.
      for (const item of batch) item.reject(err);
    } finally {
      this.scheduled = false;
      this.schedule();
    }
  }
}

async function runBatch(conn: Db, prepare: Prepare, batch: Pending[]): Promise<Outcome[]> {
  const exec = (sql: string) => prepare(sql).run();
  const outcomes: Outcome[] = [];
  exec("begin immediate");
  try {
    for (const item of batch) {
      exec("savepoint grouped");
      try {
        const value = await item.fn(conn);
        exec("release grouped");
        outcomes.push({ ok: true, value });
      } catch (error) {
        exec("rollback to grouped");
        exec("release grouped");
        outcomes.push({ ok: false, error });
      }
    }
    exec("commit");
  } catch (err) {
    try {
      exec("rollback");
    } catch {
      // The transaction is already gone.
    }
    throw err;
  }
  return outcomes;
}
