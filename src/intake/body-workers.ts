import { Worker } from "node:worker_threads";
import type { Logger } from "pino";
import { prepareBody, type BodyJob, type PreparedBody } from "./prepare-body.js";

/** Smaller bodies are prepared on the event loop: a round trip to a thread would cost more. */
export const MIN_OFFLOAD_BYTES = 4096;
/** Bodies in flight on one thread past which the event loop prepares new ones itself. */
const MAX_IN_FLIGHT = 64;
/** A thread that stopped unexpectedly is started again after this long, doubled per failure in a row. */
const RESTART_AFTER_MS = 1000;
const RESTART_AFTER_MAX_MS = 60_000;

export interface NumberedJob {
  id: number;
  job: BodyJob;
}
export type BodyReply = { id: number; body: PreparedBody } | { id: number; error: string };

export interface BodyWorkersOptions {
  /** Worker threads; 0 prepares every body on the event loop. */
  threads: number;
  /** The compiled worker module, dist/intake/body-worker.js. */
  entry: URL;
  log: Logger;
}

/**
 * Hashing, proving and parsing of large delivery bodies ({@link prepareBody}) on worker
 * threads, so the event loop keeps to HTTP, admission and the store. A 21 KB GitHub delivery
 * costs the event loop ~60 µs prepared in place and ~4 µs handed over. Bodies posted during
 * one event-loop turn go to a thread as one message. A thread that fails hands its bodies
 * back to the event loop, so no delivery waits on a dead thread.
 *
 * On the event loop, too, the bodies posted during one turn are prepared together, once the
 * turn has read every request it could. Under load, preparing each body as its request came
 * in cost about 15 % more CPU per delivery over HTTP: the same code run back to back, rather
 * than interleaved with HTTP parsing and the store, runs faster.
 */
export class BodyWorkers {
  private readonly lanes: Lane[];
  private nextId = 0;
  private handedOver = 0;
  private here: { job: BodyJob; resolve: (body: PreparedBody) => void; reject: (err: unknown) => void }[] = [];

  constructor(opts: BodyWorkersOptions) {
    this.lanes = Array.from({ length: Math.max(0, opts.threads) }, (_, i) => new Lane(opts, i));
  }

  async prepare(job: BodyJob): Promise<PreparedBody> {
    const lane = job.rawBody.byteLength >= MIN_OFFLOAD_BYTES ? this.pick() : undefined;
    if (!lane) return this.prepareHere(job);
    this.handedOver++;
    return lane.submit(this.nextId++, job);
  }

  private prepareHere(job: BodyJob): Promise<PreparedBody> {
    return new Promise((resolve, reject) => {
      if (this.here.push({ job, resolve, reject }) === 1) setImmediate(() => this.drainHere());
    });
  }

  private drainHere(): void {
    const batch = this.here;
    this.here = [];
    for (const { job, resolve, reject } of batch) {
      try {
        resolve(prepareBody(job));
      } catch (err) {
        reject(err);
      }
    }
  }

  /** Bodies handed to a thread so far. */
  get offloaded(): number {
    return this.handedOver;
  }

  /** Stops the threads; bodies still on one are prepared on the event loop. */
  async close(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.close()));
  }

  /** The usable thread with the fewest bodies in flight. */
  private pick(): Lane | undefined {
    let best: Lane | undefined;
    for (const lane of this.lanes) {
      if (lane.usable() && (!best || lane.inFlight < best.inFlight)) best = lane;
    }
    return best;
  }
}

interface Pending {
  job: BodyJob;
  resolve(body: PreparedBody): void;
  reject(err: Error): void;
}

/** One worker thread, started on first use and referenced only while bodies are on it. */
class Lane {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private batch: NumberedJob[] = [];
  private restartAt = 0;
  private failuresInARow = 0;
  private closed = false;

  constructor(
    private readonly opts: BodyWorkersOptions,
    private readonly index: number,
  ) {}

  get inFlight(): number {
    return this.pending.size;
  }

  usable(): boolean {
    return !this.closed && this.pending.size < MAX_IN_FLIGHT && performance.now() >= this.restartAt;
  }

  submit(id: number, job: BodyJob): Promise<PreparedBody> {
    return new Promise<PreparedBody>((resolve, reject) => {
      this.pending.set(id, { job, resolve, reject });
      if (this.batch.length === 0) setImmediate(() => this.flush());
      this.batch.push({ id, job: { provider: job.provider, headers: job.headers, key: job.key, rawBody: ownBytes(job.rawBody) } });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.worker?.terminate();
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0) return;
    if (this.closed) {
      this.failOver("stopping");
      return;
    }
    const worker = this.worker ?? this.start();
    worker.ref();
    worker.postMessage(batch);
  }

  private start(): Worker {
    const worker = new Worker(this.opts.entry);
    worker.on("message", (replies: BodyReply[]) => this.settle(replies));
    worker.on("error", (err) => this.opts.log.error({ err, thread: this.index }, "body thread failed; its bodies are prepared on the event loop"));
    worker.on("exit", (code) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      if (!this.closed) {
        const wait = Math.min(RESTART_AFTER_MAX_MS, RESTART_AFTER_MS * 2 ** this.failuresInARow++);
        this.restartAt = performance.now() + wait;
        this.opts.log.warn({ code, thread: this.index, restartInMs: wait }, "body thread stopped");
      }
      this.failOver("thread stopped");
    });
    this.worker = worker;
    return worker;
  }

  private settle(replies: BodyReply[]): void {
    this.failuresInARow = 0;
    for (const reply of replies) {
      const p = this.pending.get(reply.id);
      if (!p) continue;
      this.pending.delete(reply.id);
      if ("error" in reply) p.reject(new Error(`preparing a delivery body failed: ${reply.error}`));
      else p.resolve(reply.body);
    }
    if (this.pending.size === 0) this.worker?.unref();
  }

  /** Every body still on this thread is prepared on the event loop instead. */
  private failOver(why: string): void {
    const stranded = [...this.pending.values()];
    this.pending.clear();
    this.batch = [];
    if (stranded.length > 0) this.opts.log.warn({ count: stranded.length, why, thread: this.index }, "bodies prepared on the event loop");
    for (const p of stranded) {
      try {
        p.resolve(prepareBody(p.job));
      } catch (err) {
        p.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
  }
}

/**
 * The bytes in an ArrayBuffer of their own: posting a view clones its whole buffer, and a
 * small Buffer is a slice of Node's shared pool.
 */
function ownBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}
