import type { Clock } from "../core/clock.js";

/**
 * Failed sign-ins per client address in fixed windows, held by this process: each replica
 * throttles on its own (a caller spread over N replicas gets N times the allowance).
 */
export class AddressThrottle {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Seconds until the address may try again, or 0 when it may now. */
  blockedFor(address: string): number {
    const w = this.current(address);
    return w && w.failures >= this.max ? Math.ceil((w.start + this.windowMs - this.clock.now()) / 1000) : 0;
  }

  /**
   * Counts an attempt as failed before it is checked, so parallel attempts cannot all pass the
   * check; {@link forgive} takes it back when it did not fail.
   */
  fail(address: string): void {
    const w = this.current(address);
    if (w) w.failures += 1;
    else this.windows.set(address, { start: this.clock.now(), failures: 1 });
  }

  forgive(address: string): void {
    const w = this.current(address);
    if (w && w.failures > 0) w.failures -= 1;
  }

  private current(address: string) {
    const now = this.clock.now();
    // Expired windows go as they are met, and all of them when the map grows large.
    if (this.windows.size > 10_000) for (const [a, w] of this.windows) if (w.start + this.windowMs <= now) this.windows.delete(a);
    const w = this.windows.get(address);
    if (w && w.start + this.windowMs <= now) {
      this.windows.delete(address);
      return undefined;
    }
    return w;
  }
}
