import { Worker } from "node:worker_threads";
import type { CommitAnswer, DeliveryCommit } from "../delivery-ledger.js";
import type { WriteLock } from "./write-lock.js";

/** One delivery's writes as posted to the writer thread. */
export interface WriterRequest {
  id: number;
  commit: DeliveryCommit;
}
export type WriterReply = { id: number; answer: CommitAnswer } | { id: number; error: { message: string; code?: string } };

/** What the writer thread is started with. */
export interface WriterData {
  file: string;
  sync: "normal" | "full";
  /** The process's {@link WriteLock} cells. */
  lock: SharedArrayBuffer;
}

/** The code of the error a delivery gets when the writer thread stopped under it (a 503: the store is unavailable). */
export const WRITER_STOPPED = "STORE_WRITER_STOPPED";

interface Pending {
  resolve(answer: CommitAnswer): void;
  reject(err: Error): void;
}

/**
 * A file store's delivery writes ({@link commitOnSqlite}) on a thread of their own, with a
 * connection of its own, while the event loop is busy: the statements and the shared commits
 * of webhook calls leave it, and it keeps to HTTP, bodies and decisions. Requests made during one
 * event-loop turn go to the thread as one message, and its answers come back per commit as
 * one message. The two connections take turns to write ({@link WriteLock}). A caller is
 * answered after the commit that holds its rows, as on the event loop. A thread that stops
 * fails the deliveries on it with {@link WRITER_STOPPED} (whether they committed is unknown:
 * their callers get a 503, and a forge's retry is recognised by its key), and the next
 * delivery starts a new one; after failures in a row (a thread that cannot open the store)
 * deliveries fail at once with the thread's last error for a while, rather than start a
 * thread each.
 */
export class SqliteWriter {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private batch: WriterRequest[] = [];
  private nextId = 0;
  private stopping: Promise<void> | undefined;
  /** Threads that stopped in a row without answering, the last one's error, and when to start another. */
  private failuresInARow = 0;
  private lastError: Error | undefined;
  private restartAt = 0;

  private readonly data: WriterData;

  /**
   * `entry` is the compiled worker module (dist/store/sqlite/writer-worker.js); `lock` is the
   * event loop's side of the turn, whose cells the thread shares, and with which the turn of a
   * thread that stopped holding it is ended.
   */
  constructor(
    private readonly entry: URL,
    file: string,
    sync: WriterData["sync"],
    private readonly lock: WriteLock,
    /** Told when a thread stops unasked, with why and how many deliveries it failed. */
    private readonly onStopped: (err: Error, failed: number) => void = () => undefined,
  ) {
    this.data = { file, sync, lock: lock.buffer };
  }

  commit(commit: DeliveryCommit): Promise<CommitAnswer> {
    if (this.stopping) return Promise.reject(stoppedError("the store is closing"));
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      if (this.batch.push({ id, commit }) === 1) setImmediate(() => this.flush());
    });
  }

  /** Waits for the writes in flight, then stops the thread. */
  close(): Promise<void> {
    this.stopping ??= this.stop();
    return this.stopping;
  }

  private async stop(): Promise<void> {
    this.flush();
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.ref();
    worker.postMessage("stop");
    await exited;
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0) return;
    if (!this.worker && performance.now() < this.restartAt) {
      for (const { id } of batch) this.fail(id, this.stoppedBecause());
      return;
    }
    const worker = this.worker ?? this.start();
    worker.ref();
    worker.postMessage(batch);
  }

  private start(): Worker {
    const worker = new Worker(this.entry, { workerData: this.data });
    worker.on("message", (replies: WriterReply[]) => this.settle(replies));
    // An error ends the thread: "exit" follows and fails what was on it.
    worker.on("error", (err) => {
      this.lastError = err;
    });
    worker.on("exit", (code) => {
      if (this.worker === worker) this.worker = undefined;
      this.lock.releaseStoppedWriter();
      if (!this.stopping) {
        this.lastError ??= new Error(`exit code ${code}`);
        this.restartAt = performance.now() + Math.min(RESTART_AFTER_MAX_MS, this.failuresInARow && RESTART_AFTER_MS * 2 ** (this.failuresInARow - 1));
        this.failuresInARow++;
      }
      const error = this.stoppedBecause();
      if (!this.stopping) this.onStopped(error, this.pending.size);
      for (const id of [...this.pending.keys()]) this.fail(id, error);
    });
    this.worker = worker;
    return worker;
  }

  private settle(replies: WriterReply[]): void {
    this.failuresInARow = 0;
    this.lastError = undefined;
    for (const reply of replies) {
      const p = this.pending.get(reply.id);
      if (!p) continue;
      this.pending.delete(reply.id);
      if ("answer" in reply) p.resolve(reply.answer);
      else p.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    }
    if (this.pending.size === 0) this.worker?.unref();
  }

  private fail(id: number, error: Error): void {
    this.pending.get(id)?.reject(error);
    this.pending.delete(id);
  }

  private stoppedBecause(): Error {
    return stoppedError(`the store's writer thread stopped: ${this.lastError?.message ?? "unknown cause"}`, this.lastError);
  }
}

/** A thread that stopped again right after a restart waits this long to be started, doubled per failure in a row. */
const RESTART_AFTER_MS = 1000;
const RESTART_AFTER_MAX_MS = 30_000;

function stoppedError(message: string, cause?: Error): Error {
  return Object.assign(new Error(message, cause ? { cause } : undefined), { code: WRITER_STOPPED });
}
