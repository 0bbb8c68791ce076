import { ServiceError } from "./errors.js";

/**
 * Expensive work (password hashing) bounded process-wide: at most `running` at once, at most
 * `waiting` queued behind them, and beyond that a fast 503 `server_busy` with Retry-After, so
 * a flood neither queues without end on libuv's threads nor holds memory for each waiter.
 */
export class BoundedWork {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
    /** Seconds a refused caller is told to wait. */
    private readonly retryAfterS = 1,
  ) {}

  /** How many run and wait now (for metrics and tests). */
  get load(): { running: number; waiting: number } {
    return { running: this.active, waiting: this.queue.length };
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.running) {
      if (this.queue.length >= this.waiting)
        throw new ServiceError("server_busy", "the service is busy signing others in; try again shortly", undefined, this.retryAfterS);
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else {
      this.active++;
    }
    try {
      return await work();
    } finally {
      const next = this.queue.shift();
      // The slot passes to the next waiter as it is; only with none waiting is it freed.
      if (next) next();
      else this.active--;
    }
  }
}
