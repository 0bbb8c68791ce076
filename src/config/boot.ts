import fs from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import { openStore, type Store } from "../store/store.js";
import { ConfigError, loadConfig, type Config } from "./config.js";
import { StartupError } from "./process-exit.js";

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
      sqliteWriterThread: config.sqliteWriterThread,
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

export { exitOnFatal, exitOnSignal, StartupError } from "./process-exit.js";
