import fs from "node:fs";
import path from "node:path";
import { Kysely, PostgresDialect } from "kysely";
import type pg from "pg";
import type { Logger } from "pino";
import type { Database } from "./schema/index.js";
import type { Db, StoreKind } from "./db.js";
import { tracedLedger, type DeliveryLedger } from "./delivery-ledger.js";
import { migrateToLatest } from "./migrate.js";
import { PgDeliveryLedger } from "./postgres/delivery-ledger.js";
import { preparedStatements } from "./postgres/prepared.js";
import { type CheckpointTiming, startCheckpointer } from "./sqlite/checkpointer.js";
import { openSqliteConnection } from "./sqlite/connection.js";
import { sqliteLedger } from "./sqlite/delivery-ledger.js";
import { EventLoopWatch, type EventLoopLoad } from "./sqlite/event-loop-load.js";
import { GroupCommit } from "./sqlite/group-commit.js";
import { SqliteWriter } from "./sqlite/writer.js";
import { WriteLock } from "./sqlite/write-lock.js";

export type { Db, StoreKind } from "./db.js";

/**
 * The one handle on persistent state. Capabilities call the named operations of the store
 * modules with `db` (or the transaction handle `tx` gives them); the delivery write path is
 * its own contract, {@link DeliveryLedger}, built here because it shares the store's
 * connections and commits. Database differences stay inside store/.
 */
export interface Store {
  readonly kind: StoreKind;
  readonly db: Db;
  /**
   * Runs `fn` in one transaction. SQLite takes the write lock at BEGIN (IMMEDIATE), so
   * transactions are serial, and concurrent ones share a commit ({@link GroupCommit});
   * PostgreSQL runs READ COMMITTED, and operations that must be
   * exact lock the rows they decide on (SELECT … FOR NO KEY UPDATE, or FOR UPDATE).
   */
  tx<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** Webhook calls' writes: one commit each, batched or shared as the store does best. */
  readonly ledger: DeliveryLedger;
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
  /** Off: a file store writes every delivery on the event loop's connection (less memory, less throughput under load). */
  sqliteWriterThread?: boolean;
  /** When a file store's worker checkpoints and flushes its WAL; tests shorten it. */
  sqliteCheckpoint?: CheckpointTiming;
  /** The writer thread's compiled module; tests, which run src/, name the one in dist/. */
  sqliteWriterEntry?: URL;
  /** The checkpoint thread's compiled module; tests, which run src/, name the one in dist/. */
  sqliteCheckpointerEntry?: URL;
  /**
   * Whether a file store's event loop is busy, which sends its deliveries to the writer thread;
   * by default the process's own, sampled ({@link EventLoopWatch}). Tests pass a fixed one.
   */
  eventLoopLoad?: EventLoopLoad;
  /** PostgreSQL schema to use (tests use one schema per store). */
  pgSchema?: string;
  pgPoolSize?: number;
  migrate?: boolean;
  /** Where the store reports what it recovers from on its own (a writer thread that stopped). */
  log?: Pick<Logger, "error">;
}

export async function openStore(options: StoreOptions): Promise<Store> {
  // pg is loaded only for PostgreSQL: the embedded SQLite service does not carry it.
  const store = options.databaseUrl ? openPostgres(options, (await import("pg")).default) : openSqlite(options);
  if (options.migrate !== false) await migrateToLatest(store.db, options.pgSchema);
  return store;
}

/**
 * The page cache of a file store's event-loop connection, which reads configuration and serves
 * the API, and writes deliveries while it is not busy; the writer thread's writes them while it
 * is. The OS's page cache is under both.
 */
const SERVICE_CACHE_KIB = 2048;

/** The writer thread's module, compiled beside this one. */
const WRITER_ENTRY = new URL("./sqlite/writer-worker.js", import.meta.url);
/** The checkpoint thread's module, compiled beside this one. */
const CHECKPOINTER_ENTRY = new URL("./sqlite/checkpointer-worker.js", import.meta.url);

function openSqlite(options: StoreOptions): Store {
  const file = options.sqlitePath ?? ":memory:";
  const onFile = file !== ":memory:";
  if (onFile) fs.mkdirSync(path.dirname(file), { recursive: true });
  const sync = options.sqliteSync ?? "normal";
  // A file store writes deliveries on a thread with its own connection while the event loop is
  // busy (unless turned off); the two take turns.
  const lock = onFile && options.sqliteWriterThread !== false ? new WriteLock() : undefined;
  const { raw, prepare, db } = openSqliteConnection(file, { sync, checkpointsElsewhere: onFile, lock, cacheKib: onFile ? SERVICE_CACHE_KIB : undefined });
  // A file store checkpoints in a worker thread, not inside request commits. Every use of the
  // connection (a shared commit included) holds Kysely's one connection and the write turn, so
  // holding it pauses every write of the process.
  const checkpointer = onFile
    ? startCheckpointer(
        options.sqliteCheckpointerEntry ?? CHECKPOINTER_ENTRY,
        file,
        (whileHeld) => db.connection().execute(whileHeld),
        options.sqliteCheckpoint,
        (err) => options.log?.error({ err }, "the store's checkpoint thread stopped; the WAL grows until the service restarts"),
      )
    : undefined;
  const group = new GroupCommit(db, prepare);
  const writer =
    lock &&
    new SqliteWriter(options.sqliteWriterEntry ?? WRITER_ENTRY, file, sync, lock, (err, failed) =>
      options.log?.error({ err, failed }, "the store's writer thread stopped; its deliveries answered 503, the next one starts a new thread"),
    );
  const watch = writer && !options.eventLoopLoad ? new EventLoopWatch().start() : undefined;
  const load = options.eventLoopLoad ?? watch;
  return {
    kind: "sqlite",
    db,
    tx: (fn) => group.run(fn),
    ledger: tracedLedger(sqliteLedger(group, writer, load), "sqlite"),
    ping: async () => {
      raw.prepare("select 1").get();
    },
    close: async () => {
      watch?.stop();
      await writer?.close();
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

const INT8_OID = 20;

function openPostgres(options: StoreOptions, driver: typeof pg): Store {
  const pool = new driver.Pool({
    connectionString: options.databaseUrl,
    max: options.pgPoolSize ?? 10,
    // bigint columns hold epoch milliseconds and micro-USD: all well inside 2^53.
    types: {
      getTypeParser: (oid: number, format?: string) => (oid === INT8_OID ? (v: string) => Number(v) : driver.types.getTypeParser(oid, format as "text")),
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
    ledger: tracedLedger(new PgDeliveryLedger(db), "postgresql"),
    ping: async () => {
      await pool.query("select 1");
    },
    close: () => db.destroy(),
  };
}
