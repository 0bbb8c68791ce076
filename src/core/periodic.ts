/** How a timed pass ended: a failed one is left to the next tick. */
export type PassOutcome = { ok: true } | { ok: false; err: unknown };

/**
 * A sweeper's timer: a pass every `everyMs`, one at a time per process (a slow pass is not
 * overlapped by the next tick, nor by a pass asked for with `run`). The sweepers' catalog
 * (src/sweepers.ts) names, starts and stops them.
 */
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    readonly everyMs: number,
    private readonly pass: () => Promise<unknown>,
  ) {}

  /** One pass now, or the one in progress. */
  run(): Promise<unknown> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Starts the timer; `after` hears how each timed pass ended. */
  start(after: (outcome: PassOutcome) => void): void {
    this.timer ??= setInterval(() => {
      this.run().then(
        () => after({ ok: true }),
        (err: unknown) => after({ ok: false, err }),
      );
    }, this.everyMs);
    this.timer.unref();
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
