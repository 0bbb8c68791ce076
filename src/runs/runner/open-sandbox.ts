import type { Logger } from "pino";
import type { Config, RunnerSandboxSettings } from "../../config/config.js";
import { openSandbox, SandboxUnavailable, type Sandbox } from "./sandbox.js";

/** The in-process runner's sandbox (`npm start`): the service's data directory is hidden from bots. */
export function openSandboxOrExit(config: Config, log: Logger): Sandbox {
  return openRunnerSandboxOrExit(config.runnerSandbox, [config.dataDir], log);
}

/** A runner process's sandbox, said at start; an explicit SERVICE_RUNNER_SANDBOX the machine cannot give exits 2 with why. */
export function openRunnerSandboxOrExit(settings: RunnerSandboxSettings, hide: string[], log: Logger): Sandbox {
  try {
    return openSandbox(settings, hide, log);
  } catch (err) {
    if (err instanceof SandboxUnavailable) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}
