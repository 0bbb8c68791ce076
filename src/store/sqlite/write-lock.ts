/**
 * The lock's cells: whether a connection holds it, how many of the event loop's turns wait,
 * and whether the one holding it is the writer thread.
 */
const HELD = 0;
const WAITING = 1;
const WRITER_HOLDS = 2;

type WaitAsync = (cells: Int32Array, index: number, value: number) => { async: false; value: string } | { async: true; value: Promise<string> };
// ES2024's Atomics.waitAsync (Node ≥ 16); the project's lib is ES2023.
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/**
 * The turn to write of a file store's two connections in this process: the event loop's
 * (every Kysely query, so every transaction, shared commit and checkpoint hold) and the
 * writer thread's (delivery writes, {@link SqliteWriter}). Taking turns here, SQLite never
 * finds its write lock busy, so no connection sleeps in its busy handler, and the event loop
 * never blocks: it waits for its turn asynchronously. The event loop goes first: the writer
 * thread yields while an event-loop turn waits. Shared between threads as `buffer`.
 */
export class WriteLock {
  private readonly cells: Int32Array;

  constructor(
    readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT),
    /** The writer thread's side: waits while the event loop's turns wait. */
    private readonly yields = false,
  ) {
    this.cells = new Int32Array(buffer);
  }

  async acquire(): Promise<void> {
    const c = this.cells;
    if (this.yields) {
      for (;;) {
        const waiting = Atomics.load(c, WAITING);
        if (waiting !== 0) await wait(c, WAITING, waiting);
        else if (Atomics.compareExchange(c, HELD, 0, 1) === 0) {
          Atomics.store(c, WRITER_HOLDS, 1);
          return;
        } else await wait(c, HELD, 1);
      }
    }
    if (Atomics.compareExchange(c, HELD, 0, 1) === 0) return;
    Atomics.add(c, WAITING, 1);
    try {
      while (Atomics.compareExchange(c, HELD, 0, 1) !== 0) await wait(c, HELD, 1);
    } finally {
      Atomics.sub(c, WAITING, 1);
      Atomics.notify(c, WAITING);
    }
  }

  release(): void {
    if (this.yields) Atomics.store(this.cells, WRITER_HOLDS, 0);
    Atomics.store(this.cells, HELD, 0);
    Atomics.notify(this.cells, HELD);
  }

  /**
   * The writer thread stopped: a turn it held ends with it (its connection, closed as the
   * thread ended, rolled back whatever it had not committed).
   */
  releaseStoppedWriter(): void {
    if (Atomics.compareExchange(this.cells, WRITER_HOLDS, 1, 0) !== 1) return;
    Atomics.store(this.cells, HELD, 0);
    Atomics.notify(this.cells, HELD);
  }
}

/** Resolves once `cells[index]` may no longer be `value`. */
async function wait(cells: Int32Array, index: number, value: number): Promise<void> {
  const w = waitAsync(cells, index, value);
  if (w.async) await w.value;
}
