import { Worker } from "node:worker_threads";

/** How often the WAL is copied back: seconds apart, a hot page is written once, not per commit. */
const CHECKPOINT_EVERY_MS = 2000;
/**
 * How often the WAL's written pages are flushed to disk between checkpoints. A checkpoint
 * first syncs the WAL; left to it, that sync flushed two seconds of commits at once, and
 * on ext4 the request path's WAL appends waited behind it: at 1000 deliveries/s p99.9 was
 * 21–23 ms with it, 6.6–7.2 ms with these small flushes.
 */
const WAL_FLUSH_EVERY_MS = 100;
/**
 * A WAL of at least this many frames (SQLite's own automatic checkpoint threshold, ~4 MB) is
 * restarted under a brief pause of the store's writes when commits kept it from restarting.
 */
const RESTART_AFTER_FRAMES = 1000;
/** The longest the store's writes wait for a restart; past it they go on, and it is retried. */
const HOLD_MAX_MS = 50;

/** How often the worker checkpoints and flushes; tests shorten them. */
export interface CheckpointTiming {
  everyMs: number;
  flushEveryMs: number;
}

const DEFAULT_TIMING: CheckpointTiming = { everyMs: CHECKPOINT_EVERY_MS, flushEveryMs: WAL_FLUSH_EVERY_MS };

/** What the checkpoint thread ({@link startCheckpointer}) is started with. */
export interface CheckpointerData extends CheckpointTiming {
  file: string;
  restartAfterFrames: number;
}

/** Runs `whileHeld` with the store's writes waiting, and resolves when they may go on. */
export type HoldWrites = (whileHeld: () => Promise<void>) => Promise<void>;

export interface Checkpointer {
  /** A last checkpoint, then the worker's connection closes. */
  stop(): Promise<void>;
}

/**
 * WAL checkpoints off the request path. SQLite's automatic checkpoint runs inside whichever
 * commit crosses 1000 pages, synchronously, on the event loop; here a worker thread with a
 * connection of its own checkpoints PASSIVE (never blocking writers) every 2 s instead, and
 * flushes the WAL's written pages every 100 ms so that no sync is large; the service's
 * connection turns automatic checkpoints off. A WAL restarts at its start only at a write
 * that finds it wholly copied back, so under steady writes the worker catches up during a
 * pause of the service's writes (`hold`, milliseconds, at most once a checkpoint): the WAL stays
 * the size of two seconds of commits, reused in place. Durability is unchanged: commits are
 * durable in the WAL before any checkpoint, and the held writes wait, they do not fail.
 */
export function startCheckpointer(
  entry: URL,
  file: string,
  hold: HoldWrites,
  timing: CheckpointTiming = DEFAULT_TIMING,
  /** Told when the thread stops unasked: checkpoints stop with it, and the WAL grows until the store is reopened. */
  onStopped: (err: Error) => void = () => undefined,
): Checkpointer {
  const data: CheckpointerData = { file, ...timing, restartAfterFrames: RESTART_AFTER_FRAMES };
  const worker = new Worker(entry, { workerData: data });
  worker.unref();
  let stopping = false;
  worker.on("error", (err) => {
    if (!stopping) onStopped(err);
  });
  let release: (() => void) | undefined;
  const held = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => release?.(), HOLD_MAX_MS);
      release = () => {
        clearTimeout(timer);
        release = undefined;
        resolve();
      };
      worker.postMessage("held");
    });
  worker.on("message", (message) => {
    if (message === "release") release?.();
    else if (message === "hold") void hold(held).catch(() => release?.());
  });
  const exited = new Promise<void>((resolve) =>
    worker.once("exit", () => {
      release?.();
      resolve();
    }),
  );
  return {
    async stop() {
      stopping = true;
      // Unreferenced, the worker would not keep the process up until it has stopped.
      worker.ref();
      worker.postMessage("stop");
      await exited;
    },
  };
}
