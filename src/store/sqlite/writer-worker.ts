/**
 * The writer thread's entry (compiled to dist/store/sqlite/writer-worker.js): runs each
 * delivery's writes posted by {@link SqliteWriter} in shared commits on its own connection,
 * and answers the requests of each commit in one message once it is durable.
 */
import { parentPort, workerData } from "node:worker_threads";
import { GroupCommit } from "./group-commit.js";
import { commitOnSqlite } from "./commit-delivery.js";
import { openSqliteConnection } from "./connection.js";
import type { WriterData, WriterReply, WriterRequest } from "./writer.js";
import { WriteLock } from "./write-lock.js";

const port = parentPort;
if (!port) throw new Error("writer-worker.js runs as a worker thread");
/**
 * The connection's page cache: what deliveries write is the ends of the indexes they grow and
 * the counters. Measured no slower at 4 MB than at better-sqlite3's default of 16 MB, and about
 * 10 MB less resident.
 */
const CACHE_KIB = 4096;

const data = workerData as WriterData;
const lock = new WriteLock(data.lock, true);
const { db, prepare } = openSqliteConnection(data.file, { sync: data.sync, checkpointsElsewhere: true, lock, cacheKib: CACHE_KIB });
const group = new GroupCommit(db, prepare);

let replies: WriterReply[] = [];
let inFlight = 0;
let stopping = false;

function answer(reply: WriterReply): void {
  inFlight--;
  // Every transaction of a commit settles in the same turn: one message answers them all.
  if (replies.push(reply) === 1) setImmediate(sendReplies);
}

function sendReplies(): void {
  port!.postMessage(replies);
  replies = [];
  if (stopping && inFlight === 0) void stop();
}

async function stop(): Promise<void> {
  await db.destroy();
  port!.close();
}

port.on("message", (message: WriterRequest[] | "stop") => {
  if (message === "stop") {
    stopping = true;
    if (inFlight === 0 && replies.length === 0) void stop();
    return;
  }
  for (const { id, commit } of message) {
    inFlight++;
    group
      .run((tx) => commitOnSqlite(tx, commit))
      .then(
        (value) => answer({ id, answer: value }),
        (err: unknown) => {
          const e = err as { message?: unknown; code?: unknown };
          answer({ id, error: { message: String(e?.message ?? err), ...(typeof e?.code === "string" ? { code: e.code } : {}) } });
        },
      );
  }
});
