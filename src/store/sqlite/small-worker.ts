import v8 from "node:v8";
import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * The process's `--max-semi-space-size` in MB as it was started (`npm start` passes 4), or 0
 * when it was not given and V8's default applies.
 */
export function semiSpaceFlagMb(execArgv: readonly string[], nodeOptions = ""): number {
  const args = [...nodeOptions.split(/\s+/), ...execArgv];
  let mb = 0;
  args.forEach((arg, i) => {
    const m = /^--max-semi-space-size(?:=(\d+))?$/.exec(arg);
    if (m) mb = Number(m[1] ?? args[i + 1]) || 0;
  });
  return mb;
}

const processSemiSpaceMb = semiSpaceFlagMb(process.execArgv, process.env.NODE_OPTIONS);
/** Threads being started under the lowered flag. */
let starting = 0;

/**
 * A worker thread whose young generation is `semiSpaceMb` semi-spaces (V8 sizes a young
 * generation at three), not the event loop's. `resourceLimits.maxYoungGenerationSizeMb` alone
 * does not do it when the process runs with `--max-semi-space-size`: V8 lets the flag override
 * the limit, and V8's flags belong to the whole process. So the flag is lowered while the
 * thread's heap is set up (until it is online) and then put back; the event loop's heap, set up
 * at start, keeps its own. Each of the store's threads held 8 MB of young generation that way
 * (bench/ANALYSIS.md, section 37).
 */
export function smallYoungWorker(entry: URL, options: WorkerOptions, semiSpaceMb = 1): Worker {
  const resourceLimits = { ...options.resourceLimits, maxYoungGenerationSizeMb: 3 * semiSpaceMb };
  if (processSemiSpaceMb === 0 || processSemiSpaceMb <= semiSpaceMb) return new Worker(entry, { ...options, resourceLimits });
  if (starting++ === 0) v8.setFlagsFromString(`--max-semi-space-size=${semiSpaceMb}`);
  let worker: Worker;
  try {
    worker = new Worker(entry, { ...options, resourceLimits });
  } catch (err) {
    restore();
    throw err;
  }
  let restored = false;
  const once = () => {
    if (restored) return;
    restored = true;
    restore();
  };
  // A thread that fails before it is online still exits.
  worker.once("online", once);
  worker.once("exit", once);
  return worker;
}

function restore(): void {
  if (--starting === 0) v8.setFlagsFromString(`--max-semi-space-size=${processSemiSpaceMb}`);
}
