import BetterSqlite3 from "better-sqlite3";
import { CompiledQuery, Kysely, SqliteAdapter, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver } from "kysely";
import type { Prepare } from "./group-commit.js";
import type { Database } from "../schema/index.js";
import type { WriteLock } from "./write-lock.js";

export interface SqliteConnectionOptions {
  sync?: "normal" | "full";
  /** Automatic checkpoints off: a checkpoint worker runs them. */
  checkpointsElsewhere?: boolean;
  /** Taken for every use of the connection, when another connection of this process writes too. */
  lock?: WriteLock;
  /** The most the connection's page cache holds, in KiB (better-sqlite3 builds SQLite with 16 MB a connection). */
  cacheKib?: number;
}

export interface SqliteConnection {
  raw: BetterSqlite3.Database;
  /** The connection's cached prepared statements. */
  prepare: Prepare;
  db: Kysely<Database>;
}

/** One connection to a SQLite file (or `:memory:`), set up the way every connection of the service is. */
export function openSqliteConnection(file: string, options: SqliteConnectionOptions = {}): SqliteConnection {
  const raw = new BetterSqlite3(file);
  raw.pragma("journal_mode = WAL");
  raw.pragma(`synchronous = ${options.sync === "full" ? "FULL" : "NORMAL"}`);
  raw.pragma("busy_timeout = 5000");
  raw.pragma("foreign_keys = ON");
  // Each transaction of a shared commit runs in a savepoint, whose undo copies of the pages it
  // touches go to a temporary store: in memory, not in a temp file written on every first touch.
  raw.pragma("temp_store = MEMORY");
  if (options.checkpointsElsewhere) raw.pragma("wal_autocheckpoint = 0");
  if (options.cacheKib) raw.pragma(`cache_size = -${options.cacheKib}`);
  const prepare = statementCache(raw);
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect(withPrepare(raw, prepare), options.lock) });
  return { raw, prepare, db };
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
  constructor(
    private readonly raw: BetterSqlite3.Database,
    private readonly lock: WriteLock | undefined,
  ) {
    super({ database: raw });
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.raw }, this.lock);
  }
  override createAdapter() {
    return new SqliteAdapter();
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  constructor(
    config: ConstructorParameters<typeof SqliteDriver>[0],
    private readonly lock: WriteLock | undefined,
  ) {
    super(config);
  }

  /** Kysely's one connection, then (with another writer in the process) the turn to write. */
  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    await this.lock?.acquire();
    return connection;
  }

  override async releaseConnection(): Promise<void> {
    this.lock?.release();
    await super.releaseConnection();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
}
