import fs from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import { openStore, type Store } from "../store/store.js";
import { ConfigError, loadConfig, type Config } from "./config.js";

/** The configuration, or exit 2 with every problem listed: the first step of each process. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** A start-up failure the operator fixes outside the code: printed as one line, without a stack. */
export class StartupError extends Error {}

/** Say what the configuration asks to be told: unknown names, lenient fallbacks, an unreachable base URL, a missing bots file. */
export function logStartWarnings(config: Config, log: Logger, opts: { botsFile: boolean }): void {
  for (const warning of config.warnings) log.warn(warning);
  if (opts.botsFile && !fs.existsSync(config.botsFile)) {
    log.warn({ file: config.botsFile }, "bots file not found (SERVICE_BOTS_FILE): every run will fail with unknown bot until it exists");
  }
}

/** The configured store, migrated: PostgreSQL when a URL is given, else `<data dir>/service.db`. */
export async function openConfiguredStore(config: Config, log: Logger): Promise<Store> {
  const where = config.databaseUrl ? `PostgreSQL at ${describePgUrl(config.databaseUrl)}` : `SQLite in ${config.dataDir}`;
  try {
    return await openStore({
      databaseUrl: config.databaseUrl,
      sqlitePath: path.join(config.dataDir, "service.db"),
      sqliteSync: config.sqliteSync,
      pgPoolSize: config.databasePoolSize,
      log: log.child({ component: "store" }),
    });
  } catch (err) {
    throw new StartupError(`cannot open the store (${where}): ${rootCause(err)}`, { cause: err });
  }
}

/** host:port/database of a postgres:// URL, without its user or password. */
function describePgUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || "5432"}${u.pathname}`;
  } catch {
    return "the configured URL";
  }
}

/** The innermost cause's message: a refused connection, a wrong password, a read-only folder. */
export function rootCause(err: unknown): string {
  let cur: unknown = err;
  for (let depth = 0; depth < 10; depth++) {
    if (cur instanceof AggregateError && cur.errors.length > 0) cur = cur.errors[0];
    else if (cur instanceof Error && cur.cause !== undefined) cur = cur.cause;
    else break;
  }
  if (cur instanceof Error) {
    const code = (cur as { code?: unknown }).code;
    return cur.message || (typeof code === "string" ? code : cur.name);
  }
  return String(cur);
}

/** Longest a stop may take before the process exits anyway. */
const STOP_DEADLINE_MS = 25_000;

/**
 * On SIGTERM or SIGINT: log `message`, run `steps` in order (stop accepting, finish in-flight
 * work, close the store), then exit 0; exit 1 on an error or when the deadline passes.
 */
export function exitOnSignal(log: Logger, message: string, steps: Array<() => Promise<void>>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, message);
    setTimeout(() => {
      log.error(`work did not finish in ${STOP_DEADLINE_MS / 1000} s; exiting`);
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    try {
      for (const step of steps) await step();
      log.info("stopped");
      process.exit(0);
    } catch (err) {
      log.error({ err }, "error while stopping");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

/** The last line of a process's main: report a start-up failure and exit 1 (a {@link StartupError} without its stack). */
export function exitOnFatal(err: unknown): never {
  const text = err instanceof StartupError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`fatal: ${text}\n`);
  process.exit(1);
}
