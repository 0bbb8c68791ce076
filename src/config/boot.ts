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

/** The configured store, migrated: PostgreSQL when a URL is given, else `<data dir>/service.db`. */
export function openConfiguredStore(config: Config, log: Logger): Promise<Store> {
  return openStore({
    databaseUrl: config.databaseUrl,
    sqlitePath: path.join(config.dataDir, "service.db"),
    sqliteSync: config.sqliteSync,
    pgPoolSize: config.databasePoolSize,
    log: log.child({ component: "store" }),
  });
}

export { exitOnFatal, exitOnSignal } from "./process-exit.js";
