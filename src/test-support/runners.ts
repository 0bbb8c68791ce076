import type { Logger } from "pino";
import type { Config } from "../config/config.js";
import { createLogger } from "../config/logger.js";
import type { Services } from "../http/services.js";
import { RunnerDesk } from "../runs/desk/runner-desk.js";
import type { BotCommands } from "../runs/runner/bot-commands.js";
import { InProcessTransport } from "../runs/runner/in-process-transport.js";
import { Runner } from "../runs/runner/runner.js";
import { chooseSandbox, type Sandbox } from "../runs/runner/sandbox.js";

/** The in-process runner over a desk of its own that reads `bots` (the platform's pool). */
export function inProcessRunner(services: Services, bots: BotCommands, o: { log?: Logger; concurrency?: number; worker?: string; sandbox?: Sandbox } = {}) {
  const desk = new RunnerDesk({
    runs: services.runQueue,
    bots,
    credentials: services.runCredentials,
    store: services.store,
    clock: services.clock,
    metrics: services.metrics,
    log: o.log ?? createLogger("silent"),
    output: services.runLogs,
  });
  return new Runner({
    transport: new InProcessTransport(desk, { id: null, name: o.worker ?? "test", scope: { pool: "platform" } }),
    log: o.log ?? createLogger("silent"),
    concurrency: o.concurrency ?? 4,
    sandbox: o.sandbox ?? testSandbox(services.config),
  });
}

/** The sandbox the service would choose with this configuration (bubblewrap where it works), hiding its data directory. */
export function testSandbox(config: Config): Sandbox {
  return chooseSandbox(config.runnerSandbox, [config.dataDir]);
}
