import os from "node:os";
import type { Logger } from "pino";
import type { RunCredentials } from "../../credentials/run-credentials.js";
import type { Metrics } from "../../metrics/metrics.js";
import type { Runs } from "../runs.js";
import type { BotCommands } from "./bot-commands.js";
import type { AttemptOutputStore } from "./bot-output.js";
import { Runner } from "./runner.js";

/** How often an in-process timer flips runs whose lease lapsed (every replica may run it: the UPDATE is idempotent). */
export const RECLAIM_EVERY_MS = 30_000;

/**
 * Starts a reference runner and the lease reclaim timer. The bots file is read once here so a
 * malformed file stops the start with its message instead of failing each run.
 */
export function startRunner(o: {
  runs: Runs;
  bots: BotCommands;
  credentials: RunCredentials;
  output?: AttemptOutputStore;
  metrics: Metrics;
  log: Logger;
  concurrency: number;
  role: string;
}): {
  runner: Runner;
  stop(): Promise<void>;
} {
  const known = o.bots.ids();
  o.log.info({ bots: known, file: o.bots.file, concurrency: o.concurrency }, "runner starting");
  const runner = new Runner({
    runs: o.runs,
    bots: o.bots,
    credentials: o.credentials,
    output: o.output,
    metrics: o.metrics,
    log: o.log.child({ component: "runner" }),
    worker: `${os.hostname()}:${process.pid}:${o.role}`,
    concurrency: o.concurrency,
  });
  runner.start();
  const reclaim = startReclaimTimer(o.runs, o.log);
  return {
    runner,
    stop: async () => {
      await reclaim.stop();
      await runner.stop();
    },
  };
}

export function startReclaimTimer(runs: Runs, log: Logger): { stop(): Promise<void> } {
  const timer = setInterval(() => {
    runs.reclaimExpiredLeases().catch((err: unknown) => log.warn({ err }, "lease reclaim failed; retried at the next tick"));
  }, RECLAIM_EVERY_MS);
  timer.unref();
  return { stop: async () => clearInterval(timer) };
}
