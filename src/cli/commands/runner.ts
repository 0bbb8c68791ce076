import type { Command } from "commander";
import { runRunnerProcess } from "../../runner-process.js";

/** `remote runner`: this host becomes a runner of the service (docs/runners.md). */
export function registerRunner(program: Command): void {
  program
    .command("runner")
    .description("run bots for the service on this host, from a runner token alone (SERVICE_RUNNER_URL, SERVICE_RUNNER_TOKEN); stops on SIGTERM")
    .option("--url <url>", "the service's address (default SERVICE_RUNNER_URL)")
    .option("--token <rnr_…>", "the runner token (default SERVICE_RUNNER_TOKEN; prefer the variable: arguments are visible to other users)")
    .option("--name <name>", "this host's name in the runs it claims (default SERVICE_RUNNER_NAME or the host name)")
    .option("--concurrency <n>", "runs at once (default SERVICE_RUNNER_CONCURRENCY or 4)")
    .option("--bots-dir <dir>", "where bots' commands run from (default SERVICE_RUNNER_BOTS_DIR or ./bots)")
    .action(async (opts: Record<string, string | undefined>) => {
      await runRunnerProcess({
        ...process.env,
        ...(opts.url && { SERVICE_RUNNER_URL: opts.url }),
        ...(opts.token && { SERVICE_RUNNER_TOKEN: opts.token }),
        ...(opts.name && { SERVICE_RUNNER_NAME: opts.name }),
        ...(opts.concurrency && { SERVICE_RUNNER_CONCURRENCY: opts.concurrency }),
        ...(opts.botsDir && { SERVICE_RUNNER_BOTS_DIR: opts.botsDir }),
      });
      // Runs until a signal or a refused token ends the process.
      await new Promise<never>(() => undefined);
    });
}
