import { CompiledQuery, type Kysely } from "kysely";
import type { Database } from "./schema/index.js";

type Db = Kysely<Database>;

interface Pending {
  fn: (tx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Enough to amortise a commit; small enough that one batch never holds the lock for long. */
const MAX_BATCH = 128;

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

  constructor(private readonly db: Db) {}

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
      const outcomes = await this.db.connection().execute((conn) => runBatch(conn, batch));
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

const BEGIN = CompiledQuery.raw("begin immediate");
const SAVEPOINT = CompiledQuery.raw("savepoint grouped");
const RELEASE = CompiledQuery.raw("release grouped");
const ROLLBACK_TO = CompiledQuery.raw("rollback to grouped");
const COMMIT = CompiledQuery.raw("commit");
const ROLLBACK = CompiledQuery.raw("rollback");

async function runBatch(conn: Db, batch: Pending[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  await conn.executeQuery(BEGIN);
  try {
    for (const item of batch) {
      await conn.executeQuery(SAVEPOINT);
      try {
        const value = await item.fn(conn);
        await conn.executeQuery(RELEASE);
        outcomes.push({ ok: true, value });
      } catch (error) {
        await conn.executeQuery(ROLLBACK_TO);
        await conn.executeQuery(RELEASE);
        outcomes.push({ ok: false, error });
      }
    }
    await conn.executeQuery(COMMIT);
  } catch (err) {
    await conn.executeQuery(ROLLBACK).catch(() => undefined);
    throw err;
  }
  return outcomes;
}
