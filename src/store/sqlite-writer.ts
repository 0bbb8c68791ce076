import { Worker } from "node:worker_threads";
import type { CallLimits, DeliveryAnswer, DeliveryWrite } from "./intake.js";
import { WriteLock } from "./write-lock.js";

/** One delivery's writes as posted to the writer thread. */
export interface WriterRequest {
  id: number;
  admission: CallLimits | null;
  write: DeliveryWrite;
}
export type WriterReply = { id: number; answer: DeliveryAnswer } | { id: number; error: { message: string; code?: string } };

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
  resolve(answer: DeliveryAnswer): void;
  reject(err: Error): void;
}

/**
 * A file store's delivery writes ({@link deliverOnSqlite}) on a thread of their own, with a
 * connection of its own: the statements and the shared commits of every webhook call leave
 * the event loop, which keeps to HTTP, bodies and decisions. Requests made during one
 * event-loop turn go to the thread as one message, and its answers come back per commit as
 * one message. The two connections take turns to write ({@link WriteLock}). A caller is
 * answered after the commit that holds its rows, as on the event loop. A thread that stops
 * fails the deliveries on it with {@link WRITER_STOPPED} (whether they committed is unknown:
 * their callers get a 503, and a forge's retry is recognised by its key), and the next
 * delivery starts a new one.
 */
export class SqliteWriter {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private batch: WriterRequest[] = [];
  private nextId = 0;
  private stopping: Promise<void> | undefined;

  /** The event loop's side of the lock, to end the turn of a thread that stopped holding it. */
  private readonly lock: WriteLock;

  constructor(
    private readonly entry: URL,
    private readonly data: WriterData,
  ) {
    this.lock = new WriteLock(data.lock);
  }

  deliver(admission: CallLimits | null, write: DeliveryWrite): Promise<DeliveryAnswer> {
    if (this.stopping) return Promise.reject(stoppedError("the store is closing"));
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      if (this.batch.push({ id, admission, write }) === 1) setImmediate(() => this.flush());
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
    const worker = this.worker ?? this.start();
    worker.ref();
    worker.postMessage(batch);
  }

  private start(): Worker {
    const worker = new Worker(this.entry, { workerData: this.data });
    worker.on("message", (replies: WriterReply[]) => this.settle(replies));
    // An error ends the thread: "exit" follows and fails what was on it.
    worker.on("error", () => undefined);
    worker.on("exit", (code) => {
      if (this.worker === worker) this.worker = undefined;
      this.lock.releaseStoppedWriter();
      const stranded = [...this.pending.values()];
      this.pending.clear();
      for (const p of stranded) p.reject(stoppedError(`the store's writer thread stopped (exit code ${code})`));
    });
    this.worker = worker;
    return worker;
  }

  private settle(replies: WriterReply[]): void {
    for (const reply of replies) {
      const p = this.pending.get(reply.id);
      if (!p) continue;
      this.pending.delete(reply.id);
      if ("answer" in reply) p.resolve(reply.answer);
      else p.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    }
    if (this.pending.size === 0) this.worker?.unref();
  }
}

function stoppedError(message: string): Error {
  return Object.assign(new Error(message), { code: WRITER_STOPPED });
}
