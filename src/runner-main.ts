import { exitOnFatal, exitOnSignal, loadConfigOrExit, logStartWarnings, openConfiguredStore } from "./config/boot.js";
import { createLogger } from "./config/logger.js";
import { loadSealer } from "./config/seal-key.js";
import { platformKeysOf } from "./credentials/platform-keys.js";
import { RunCredentials } from "./credentials/run-credentials.js";
import { systemClock } from "./core/clock.js";
import { randomIds } from "./core/ids.js";
import { Metering } from "./metering/metering.js";
import { Metrics } from "./metrics/metrics.js";
import { BotCommands } from "./runs/runner/bot-commands.js";
import { startRunner } from "./runs/runner/start-runner.js";
import { Runs } from "./runs/runs.js";
import { RunnerDesk } from "./runs/desk/runner-desk.js";

/**
 * A runner process of the scaled mode: claims runs over the shared store and executes them.
 * PostgreSQL is the store for several hosts; a second process on the SQLite host also works
 * (BEGIN IMMEDIATE and busy_timeout serialise the two), which is allowed with a warning.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const log = createLogger(config.logLevel);
  logStartWarnings(config, log, { botsFile: true });
  const store = await openConfiguredStore(config, log);
  if (store.kind === "sqlite") {
    log.warn({ dataDir: config.dataDir }, "runner on the SQLite store: only valid on the same host as the service; use PostgreSQL across hosts");
  }
  const metrics = new Metrics();
  const metering = new Metering({ store, clock: systemClock, log });
  const runs = new Runs({ store, clock: systemClock, ids: randomIds, metrics, log, metering, retryDefaults: config.retryDefaults });
  // The same seal key as the service's (SERVICE_SEAL_KEY, or the data folder's key file on its host).
  const sealer = loadSealer(config, (message) => log.warn(message));
  const credentials = new RunCredentials({ store, sealer, clock: systemClock, platformKeys: platformKeysOf(config.platformKeys) });
  const bots = new BotCommands(config.botsFile);
  const desk = new RunnerDesk({ runs, bots, credentials, store, clock: systemClock, metrics, log });
  const runner = startRunner({
    desk,
    runs,
    bots,
    log,
    concurrency: config.runnerConcurrency,
    role: "runner",
  });

  exitOnSignal(log, "runner stopping: running bots are stopped and left resumable", [() => runner.stop(), () => store.close()]);
}

main().catch(exitOnFatal);
