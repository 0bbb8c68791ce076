import type { Logger } from "pino";
import type { RunnerConfig } from "../../config/runner-config.js";
import { HttpTransport } from "./http-transport.js";
import { Runner } from "./runner.js";
import type { RunnerTokenRefused } from "./runner-transport.js";
import type { Sandbox } from "./sandbox.js";

/**
 * A runner on a host of its own: the runner protocol over HTTP, with the service's URL and a
 * runner token alone. It holds no database URL and no seal key; each attempt brings its credentials.
 */
export function startRemoteRunner(config: RunnerConfig, log: Logger, sandbox: Sandbox, onTokenRefused: (err: RunnerTokenRefused) => void): Runner {
  log.info({ url: config.url, name: config.name, concurrency: config.concurrency, botsDir: config.botsDir }, "runner starting");
  const runner = new Runner({
    transport: new HttpTransport({ url: config.url, token: config.token, host: config.name, botsDir: config.botsDir }),
    log: log.child({ component: "runner" }),
    concurrency: config.concurrency,
    sandbox,
    onTokenRefused,
  });
  runner.start();
  return runner;
}
