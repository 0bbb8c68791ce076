import { exitOnFatal, exitOnSignal, loadConfigOrExit, openConfiguredStore } from "./config/boot.js";
import { openSandboxOrExit } from "./runs/runner/open-sandbox.js";
import { createLogger } from "./config/logger.js";
import { loadSealer } from "./config/seal-key.js";
import { composeServices } from "./compose.js";
import { systemClock } from "./core/clock.js";
import { randomIds } from "./core/ids.js";
import { buildApp } from "./http/app.js";
import { Metrics } from "./metrics/metrics.js";
import { bootstrapAdmin } from "./tenancy/bootstrap.js";
import { startReclaimTimer, startRunner } from "./runs/runner/start-runner.js";

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const log = createLogger(config.logLevel);

  const store = await openConfiguredStore(config, log);
  log.info({ store: store.kind, dataDir: store.kind === "sqlite" ? config.dataDir : undefined }, "store open, migrations applied");

  const sealer = loadSealer(config, (message) => log.warn(message));
  const metrics = new Metrics();
  const services = composeServices({ config, store, clock: systemClock, ids: randomIds, metrics, sealer, log });

  const boot = await bootstrapAdmin({ store, clock: systemClock, ids: randomIds, tokens: services.tokens }, config.adminToken);
  if (boot.kind === "minted") {
    // Printed once, on stdout, outside the JSON log: the only copy of the first admin token.
    process.stdout.write(`\nSuper-admin token (shown once, store it now):\n\n  ${boot.token}\n\n`);
  } else if (boot.kind === "env-token" && boot.created) {
    log.info("SERVICE_ADMIN_TOKEN registered as the super-admin's token");
  }

  const app = await buildApp(services, { logger: log });
  // A burst of new connections waits in the kernel's queue rather than retrying its SYN a second later.
  await app.listen({ host: config.host, port: config.port, backlog: config.http.maxConnections });
  log.info({ url: config.baseUrl }, "listening");
  // In-process runner (embedded mode); with SERVICE_RUNNER=none this process only reclaims lapsed leases.
  const runner =
    config.runner === "inprocess"
      ? startRunner({
          desk: services.runnerDesk,
          runs: services.runQueue,
          bots: services.botCommands,
          log,
          concurrency: config.runnerConcurrency,
          role: "inprocess",
          sandbox: openSandboxOrExit(config, log),
        })
      : startReclaimTimer(services.runQueue, log, services.runnerDesk.leaseMs);
  const parked = services.parked.start();
  const scheduler = services.scheduler.start();
  const retries = services.retries.start();
  const runLogs = services.runLogs.start();
  const keptRequests = services.keptRequests.start();
  const boardDispatcher = services.boardDispatcher.start();
  const securityRead = services.securityRead.start();

  exitOnSignal(log, "stopping: no new requests, finishing in-flight ones", [
    () => app.close(),
    () => runner.stop(),
    () => parked.stop(),
    () => scheduler.stop(),
    () => retries.stop(),
    () => runLogs.stop(),
    () => keptRequests.stop(),
    () => boardDispatcher.stop(),
    () => securityRead.stop(),
    () => store.close(),
  ]);
}

main().catch(exitOnFatal);
