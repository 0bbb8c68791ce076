import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SelectQueryBuilder,
} from "kysely";
import type pg from "pg";
import type { Database } from "./schema/index.js";
import { type CheckpointTiming, startCheckpointer } from "./checkpointer.js";
import { GroupCommit, type Prepare } from "./group-commit.js";
import { preparedStatements } from "./pg-prepared.js";
import { migrateToLatest } from "./migrate.js";

export type StoreKind = "sqlite" | "postgres";
export type Db = Kysely<Database>;

/**
 * The one handle on persistent state. Capabilities call the named operations of the
 * store modules with `db` (or the transaction handle `tx` gives them); database
 * differences stay behind {@link Store.kind} inside store/.
 */
export interface Store {
  readonly kind: StoreKind;
  readonly db: Db;
  /**
   * Runs `fn` in one transaction. SQLite takes the write lock at BEGIN (IMMEDIATE), so
   * transactions are serial, and concurrent ones share a commit ({@link GroupCommit});
   * PostgreSQL runs READ COMMITTED, and operations that must be
   * exact lock the rows they decide on ({@link lockForUpdate}).
   */
  tx<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /**
   * A write that is one statement on PostgreSQL, durable when the promise resolves unless the
   * statement turns `synchronous_commit` off for itself (only the call admission does, and
   * says why). PostgreSQL runs it in autocommit, with no BEGIN/COMMIT round trips around it (its
   * rows are locked for that statement only; a procedure may commit inside it, as the
   * delivery's admission-and-write does); SQLite runs `fn` atomically in the shared commit
   * of {@link tx}, where an autocommit statement would pay a commit of its own.
   */
  write<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /** Resolves when the store answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** postgres://… or empty for SQLite. */
  databaseUrl: string;
  /** SQLite file; `:memory:` for a private in-memory store. */
  sqlitePath?: string;
  sqliteSync?: "normal" | "full";
  /** When a file store's worker checkpoints and flushes its WAL; tests shorten it. */
  sqliteCheckpoint?: CheckpointTiming;
  /** PostgreSQL schema to use (tests use one schema per store). */
  pgSchema?: string;
  pgPoolSize?: number;
  migrate?: boolean;
}

export async function openStore(options: StoreOptions): Promise<Store> {
  // pg is loaded only for PostgreSQL: the embedded SQLite service does not carry it.
  const store = options.databaseUrl ? openPostgres(options, (await import("pg")).default) : openSqlite(options);
  if (options.migrate !== false) await migrateToLatest(store.db, options.pgSchema);
  return store;
}

/** Adds FOR UPDATE where the store has row locks; SQLite's write lock already serialises. */
export function lockForUpdate<QB extends SelectQueryBuilder<Database, keyof Database, object>>(
  kind: StoreKind,
  qb: QB,
): QB {
  return kind === "postgres" ? (qb.forUpdate() as QB) : qb;
}

function openSqlite(options: StoreOptions): Store {
  const file = options.sqlitePath ?? ":memory:";
  if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
  const raw = new BetterSqlite3(file);
  raw.pragma("journal_mode = WAL");
  raw.pragma(`synchronous = ${options.sqliteSync === "full" ? "FULL" : "NORMAL"}`);
  raw.pragma("busy_timeout = 5000");
  raw.pragma("foreign_keys = ON");
  // Each transaction of a shared commit runs in a savepoint, whose undo copies of the pages it
  // touches go to a temporary store: in memory, not in a temp file written on every first touch.
  raw.pragma("temp_store = MEMORY");
  const prepare = statementCache(raw);
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect(withPrepare(raw, prepare)) });
  // A file store checkpoints in a worker thread, not inside request commits. Every write
  // (a shared commit included) holds Kysely's one connection, so holding it pauses them all.
  const checkpointer =
    file === ":memory:" ? undefined : startCheckpointer(file, (whileHeld) => db.connection().execute(whileHeld), options.sqliteCheckpoint);
  if (checkpointer) raw.pragma("wal_autocheckpoint = 0");
  const group = new GroupCommit(db, prepare);
  return {
    kind: "sqlite",
    db,
    tx: (fn) => group.run(fn),
    write: (fn) => group.run(fn),
    ping: async () => {
      raw.prepare("select 1").get();
    },
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** Most distinct statements kept prepared; the service issues a few hundred at most. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Statements prepared once per SQL text: Kysely's driver prepares on every query, which costs
 * as much as running a small statement. Reusing a statement is safe because better-sqlite3
 * runs each one to completion synchronously.
 */
function statementCache(raw: BetterSqlite3.Database): Prepare {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return (sql) => {
    let stmt = cache.get(sql);
    if (!stmt) {
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
      stmt = raw.prepare(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  };
}

/** The database as Kysely's driver sees it, with `prepare` answered from the cache. */
function withPrepare(raw: BetterSqlite3.Database, prepare: Prepare): BetterSqlite3.Database {
  return new Proxy(raw, {
    get(target, key) {
      if (key === "prepare") return prepare;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** SQLite dialect whose transactions begin IMMEDIATE: no lock-upgrade deadlocks between processes. */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly raw: BetterSqlite3.Database) {
    super({ database: raw });
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.raw });
  }
  override createAdapter() {
    return new SqliteAdapter();
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
}

const INT8_OID = 20;

function openPostgres(options: StoreOptions, driver: typeof pg): Store {
  const pool = new driver.Pool({
    connectionString: options.databaseUrl,
    max: options.pgPoolSize ?? 10,
    // bigint columns hold epoch milliseconds and micro-USD: all well inside 2^53.
    types: {
      getTypeParser: (oid: number, format?: string) =>
        oid === INT8_OID ? (v: string) => Number(v) : driver.types.getTypeParser(oid, format as "text"),
    } as pg.CustomTypesConfig,
    ...(options.pgSchema ? { options: `-c search_path=${options.pgSchema}` } : {}),
  });
  // A dropped connection must not crash the process: idle ones report on the pool, checked-out
  // ones on their client. The query in flight fails (→ 503) and the next one reconnects.
  pool.on("error", () => undefined);
  const prepare = preparedStatements();
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
    prepare(client);
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    kind: "postgres",
    db,
    tx: (fn) => db.transaction().execute(fn),
    write: (fn) => fn(db),
    ping: async () => {
      await pool.query("select 1");
    },
    close: () => db.destroy(),
  };
}
