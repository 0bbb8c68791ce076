import type { Logger } from "pino";
import type { Config } from "../../config/config.js";
import { openSandbox, SandboxUnavailable, type Sandbox } from "./sandbox.js";

/**
 * The runner's sandbox for a process of the service (`npm start`, `npm run runner`), hiding the
 * data directory; an explicit SERVICE_RUNNER_SANDBOX the machine cannot give exits 2 with why.
 */
export function openSandboxOrExit(config: Config, log: Logger): Sandbox {
  try {
    return openSandbox(config.runnerSandbox, [config.dataDir], log);
  } catch (err) {
    if (err instanceof SandboxUnavailable) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}
