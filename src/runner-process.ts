import { exitOnSignal } from "./config/process-exit.js";
import { PRODUCT } from "./core/product.js";
import { startTracing, stopTracing } from "./core/tracing.js";
import { ConfigError } from "./config/config.js";
import { createLogger } from "./config/logger.js";
import { loadRunnerConfig } from "./config/runner-config.js";
import { openRunnerSandboxOrExit } from "./runs/runner/open-sandbox.js";
import { startRemoteRunner } from "./runs/runner/remote-runner.js";

/**
 * Runs this process as a runner of the scaled mode (`npm run runner`, `remote runner`): claims
 * runs from the service over the runner protocol with a URL and a runner token. It needs no
 * database and no seal key; house variables given to it are ignored and removed from the
 * process's environment. Exits 2 on bad settings, 3 when the service refuses its token. With an
 * OTLP endpoint set (the standard OTEL_* variables), its claims, attempts, output and finish calls
 * are traced, and each call carries its span's `traceparent` to the service.
 */
export async function runRunnerProcess(env: Record<string, string | undefined>): Promise<void> {
  let config: ReturnType<typeof loadRunnerConfig>;
  try {
    config = loadRunnerConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  for (const name of config.ignored) delete process.env[name];
  if (config.ignored.length > 0) {
    log.warn(
      { ignored: config.ignored },
      "a runner needs no database URL, seal key, admin token or platform key: these variables are ignored and removed from its environment; do not give them to runner hosts",
    );
  }
  // The transport holds the token; no child process is to find it in the environment.
  delete process.env.SERVICE_RUNNER_TOKEN;
  const tracing = await startTracing({ name: `${PRODUCT.name}-runner`, version: PRODUCT.version }, env);
  if (tracing.on) {
    for (const warning of tracing.warnings) log.warn(warning);
    log.info({ protocol: tracing.protocol }, "OpenTelemetry traces on: the runner's spans go to the OTLP endpoint (docs/operations.md)");
  }
  // A runner host holds no data directory of the service: nothing of the house to hide but its own environment.
  const sandbox = openRunnerSandboxOrExit(config.sandbox, [], log);
  const runner = startRemoteRunner(config, log, sandbox, () => {
    log.error("runner token refused (revoked, rotated or unknown): this runner stopped; its runs are reclaimed when their leases lapse");
    process.stderr.write("runner stopped: the service refused its token (revoked, rotated or unknown)\n");
    void stopTracing().finally(() => process.exit(3));
  });
  exitOnSignal(log, "runner stopping: running bots are stopped and their runs left resumable", [() => runner.stop(), () => stopTracing()]);
}
