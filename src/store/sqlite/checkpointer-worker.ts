/**
 * The checkpoint thread's entry (compiled to dist/store/sqlite/checkpointer-worker.js): checkpoints
 * the WAL PASSIVE every `everyMs` and flushes its written pages every `flushEveryMs` on a connection
 * of its own ({@link startCheckpointer}). It sends "hold" and then "release"; the service answers
 * "held" once its writes wait, and sends "stop" to close.
 */
import fs from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import BetterSqlite3 from "better-sqlite3";
import type { CheckpointerData } from "./checkpointer.js";

const port = parentPort ?? notAThread();

function notAThread(): never {
  throw new Error("checkpointer-worker.js runs as a worker thread");
}

const data = workerData as CheckpointerData;
const db = new BetterSqlite3(data.file);
db.pragma("busy_timeout = 5000");

/** The WAL's frames when the checkpoint began (`log`), and how many of them are now in the database file. */
interface Checkpointed {
  busy: number;
  log: number;
  checkpointed: number;
}

function checkpoint(): Checkpointed | undefined {
  try {
    return (db.pragma("wal_checkpoint(PASSIVE)") as Checkpointed[])[0];
  } catch {
    return undefined;
  }
}

let wal: number | undefined;
/**
 * Flushing through a read-only descriptor is allowed on Linux and macOS; elsewhere it fails
 * quietly and the checkpoint's own sync does the work.
 */
function flushWal(): void {
  try {
    wal ??= fs.openSync(`${data.file}-wal`, "r");
    fs.fdatasyncSync(wal);
  } catch {
    // The checkpoint's sync covers it.
  }
}

let holding = false;

function tick(): void {
  const done = checkpoint();
  if (holding || done === undefined || done.log < data.restartAfterFrames) return;
  // The next write restarts the WAL at its start only if no commit came in after a complete
  // checkpoint, which never happens under steady writes: the WAL would grow without bound.
  // Copy what came in during the long checkpoint now, and flush the WAL, then ask the
  // service to pause its writes for a short last one: what it copies and syncs is small.
  checkpoint();
  flushWal();
  holding = true;
  port.postMessage("hold");
}

const timers = [setInterval(tick, data.everyMs), setInterval(flushWal, data.flushEveryMs)];

port.on("message", (message: "held" | "stop") => {
  if (message === "held") {
    checkpoint();
    holding = false;
    port.postMessage("release");
    return;
  }
  for (const timer of timers) clearInterval(timer);
  checkpoint();
  if (wal !== undefined) fs.closeSync(wal);
  db.close();
  port.close();
});
