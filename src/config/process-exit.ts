import type { Logger } from "pino";

/** Longest a stop may take before the process exits anyway. */
const STOP_DEADLINE_MS = 25_000;

/**
 * On SIGTERM or SIGINT: log `message`, run `steps` in order (stop accepting, finish in-flight
 * work, close the store), then exit 0; exit 1 on an error or when the deadline passes.
 */
export function exitOnSignal(log: Logger, message: string, steps: Array<() => Promise<void>>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, message);
    setTimeout(() => {
      log.error(`work did not finish in ${STOP_DEADLINE_MS / 1000} s; exiting`);
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    try {
      for (const step of steps) await step();
      log.info("stopped");
      process.exit(0);
    } catch (err) {
      log.error({ err }, "error while stopping");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

/** A start-up failure the operator fixes outside the code: printed as one line, without a stack. */
export class StartupError extends Error {}

/** The last line of a process's main: report a start-up failure and exit 1 (a {@link StartupError} without its stack). */
export function exitOnFatal(err: unknown): never {
  const text = err instanceof StartupError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`fatal: ${text}\n`);
  process.exit(1);
}
