import os from "node:os";
import type { Logger } from "pino";
import type { RunnerDesk } from "../desk/runner-desk.js";
import type { Runs } from "../runs.js";
import type { BotCommands } from "./bot-commands.js";
import { InProcessTransport } from "./in-process-transport.js";
import { Runner } from "./runner.js";
import type { Sandbox } from "./sandbox.js";

/** How often an in-process timer flips runs whose lease lapsed, at most (every replica may run it: the UPDATE is idempotent). */
export const RECLAIM_EVERY_MS = 30_000;

/**
 * Starts the in-process runner (the platform's pool, through the service's desk) and the lease
 * reclaim timer. The bots file is read once here so a malformed file stops the start with its
 * message instead of failing each run.
 */
export function startRunner(o: { desk: RunnerDesk; runs: Runs; bots: BotCommands; log: Logger; concurrency: number; role: string; sandbox: Sandbox }): {
  runner: Runner;
  stop(): Promise<void>;
} {
  const known = o.bots.ids();
  o.log.info({ bots: known, file: o.bots.file, concurrency: o.concurrency }, "runner starting");
  const runner = new Runner({
    transport: new InProcessTransport(o.desk, { id: null, name: `${os.hostname()}:${process.pid}:${o.role}`, scope: { pool: "platform" } }),
    log: o.log.child({ component: "runner" }),
    concurrency: o.concurrency,
    sandbox: o.sandbox,
  });
  runner.start();
  const reclaim = startReclaimTimer(o.runs, o.log, o.desk.leaseMs);
  return {
    runner,
    stop: async () => {
      await reclaim.stop();
      await runner.stop();
    },
  };
}

/** Flips runs whose lease lapsed, every half lease (30 s at most), so a lost runner's run is freed within 1.5 leases. */
export function startReclaimTimer(runs: Runs, log: Logger, leaseMs: number): { stop(): Promise<void> } {
  const timer = setInterval(
    () => {
      runs.reclaimExpiredLeases().catch((err: unknown) => log.warn({ err }, "lease reclaim failed; retried at the next tick"));
    },
    Math.min(RECLAIM_EVERY_MS, Math.floor(leaseMs / 2)),
  );
  timer.unref();
  return { stop: async () => clearInterval(timer) };
}
