import type { Logger } from "pino";

/**
 * A sweeper's timer: `sweep` every `everyMs`, one pass at a time per process (a slow pass is not
 * overlapped by the next tick), a failed pass logged and left to the next tick.
 */
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly what: string,
    private readonly everyMs: number,
    private readonly pass: () => Promise<unknown>,
    private readonly log: Pick<Logger, "warn">,
  ) {}

  /** One pass now, or the one in progress. */
  run(): Promise<unknown> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  start(): this {
    this.timer ??= setInterval(() => {
      this.run().catch((err: unknown) => this.log.warn({ err }, `${this.what} failed; retried at the next tick`));
    }, this.everyMs);
    this.timer.unref();
    return this;
  }

  /** Stops the timer, after the pass in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }
}

/** A sweep in batches: `batch(limit)` again until it handles fewer than `limit` rows; the total handled. */
export async function inBatches(limit: number, batch: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await batch(limit);
    total += n;
    if (n < limit) return total;
  }
}
