import { exitOnFatal, exitOnSignal, loadConfigOrExit, logStartWarnings, openConfiguredStore, StartupError } from "./config/boot.js";
import { openSandboxOrExit } from "./runs/runner/open-sandbox.js";
import { createLogger } from "./config/logger.js";
import { loadSealer } from "./config/seal-key.js";
import { composeServices } from "./compose.js";
import { systemClock } from "./core/clock.js";
import { PRODUCT } from "./core/product.js";
import { startTracing, stopTracing } from "./core/tracing.js";
import { randomIds } from "./core/ids.js";
import { buildApp } from "./http/app.js";
import { Metrics } from "./metrics/metrics.js";
import { bootstrapAdmin } from "./tenancy/bootstrap.js";
import { sweeperCatalog, Sweepers } from "./sweepers.js";
import { startReclaimTimer, startRunner } from "./runs/runner/start-runner.js";

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const log = createLogger(config.logLevel);
  logStartWarnings(config, log, { botsFile: config.runner === "inprocess" });
  const tracing = await startTracing(PRODUCT);
  if (tracing.on) {
    for (const warning of tracing.warnings) log.warn(warning);
    log.info({ protocol: tracing.protocol }, "OpenTelemetry traces on: spans go to the OTLP endpoint (docs/operations.md)");
  }

  const store = await openConfiguredStore(config, log);
  log.info({ store: store.kind, dataDir: store.kind === "sqlite" ? config.dataDir : undefined }, "store open, migrations applied");

  const sealer = loadSealer(config, (message) => log.warn(message));
  const metrics = new Metrics();
  const services = composeServices({ config, store, clock: systemClock, ids: randomIds, metrics, sealer, log });

  const app = await buildApp(services, { logger: log });
  // A burst of new connections waits in the kernel's queue rather than retrying its SYN a second later.
  try {
    await app.listen({ host: config.host, port: config.port, backlog: config.http.maxConnections });
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why = code === "EADDRINUSE" ? "the address is in use (another process listens there)" : (err as Error).message;
    throw new StartupError(`cannot listen on ${config.host}:${config.port}: ${why}`, { cause: err });
  }
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
  const sweepers = new Sweepers(sweeperCatalog(services), { log, metrics: services.metrics }).start();

  // The first admin token is minted only once the service listens and runs: a start that dies
  // earlier (port in use, a bad bots file) leaves the store without one, and the next start prints it.
  const boot = await bootstrapAdmin({ store, clock: systemClock, ids: randomIds, tokens: services.tokens }, config.adminToken);
  if (boot.kind === "minted") {
    log.flush();
    // Printed once, on stdout, outside the JSON log: the only copy of the first admin token.
    process.stdout.write(`\nSuper-admin token (shown once, store it now):\n\n  ${boot.token}\n\n`);
  } else if (boot.kind === "env-token" && boot.created) {
    log.info("SERVICE_ADMIN_TOKEN registered as the super-admin's token");
  }

  exitOnSignal(log, "stopping: no new requests, finishing in-flight ones", [
    () => app.close(),
    () => runner.stop(),
    () => sweepers.stop(),
    () => store.close(),
    () => stopTracing(),
  ]);
}

main().catch(exitOnFatal);
