import { PostgresAdapter, type Kysely } from "kysely";

/**
 * What the database under a store can do that the other cannot, each named, as Kysely's
 * adapters name theirs (`supportsReturning`, `supportsTransactionalDdl`): an operation asks for
 * the capability it relies on, never which database it runs on. The only place that knows.
 */
export interface DialectCapabilities {
  /** Hand-written SQL numbers its placeholders (`$1…$n`); otherwise `?`. */
  readonly numberedParameters: boolean;
  /**
   * A transaction can lock the rows it decides on until it ends (`for update`, `for no key
   * update`, `skip locked`). Without it writers are serial anyway (SQLite's BEGIN IMMEDIATE).
   */
  readonly lockRows: boolean;
  /** Functions and procedures installed from store/postgres/ after the migrations. */
  readonly storedRoutines: boolean;
}

const POSTGRES: DialectCapabilities = { numberedParameters: true, lockRows: true, storedRoutines: true };
const SQLITE: DialectCapabilities = { numberedParameters: false, lockRows: false, storedRoutines: false };

/** The capabilities of `db`'s database (or of the database a transaction of it runs on). */
export function dialect(db: Kysely<any>): DialectCapabilities {
  return isPostgres(db) ? POSTGRES : SQLITE;
}

/** True when `db` (or a transaction of it) runs on PostgreSQL. */
function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
