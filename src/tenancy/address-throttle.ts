import type { Clock } from "../core/clock.js";
import { countAddressFailure, deleteEndedAddressWindows, findAddressFailures, forgiveAddressFailure } from "../store/sign-in-throttle.js";
import type { Store } from "../store/store.js";

/** A failure counted ahead of the check: what {@link AddressThrottle.forgive} takes back. */
export interface CountedFailure {
  address: string;
  windowStart: number;
}

/**
 * Failed sign-ins per client address in fixed windows, held in the store, so a caller spread
 * over many replicas gets one allowance, as the account lockout does.
 */
export class AddressThrottle {
  private lastSweep = 0;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Seconds until the address may try again, or 0 when it may now. */
  async blockedFor(address: string): Promise<number> {
    const now = this.clock.now();
    const w = await findAddressFailures(this.store.db, address, now, this.windowMs);
    return w && w.failures >= this.max ? Math.max(1, Math.ceil((w.windowStart + this.windowMs - now) / 1000)) : 0;
  }

  /**
   * Counts an attempt as failed before it is checked, so parallel attempts (on any replica)
   * cannot all pass the check; {@link forgive} takes it back when it did not fail. Returns the
   * seconds to wait when this attempt is over the allowance, else 0.
   */
  async fail(address: string): Promise<{ counted: CountedFailure; blockedFor: number }> {
    const now = this.clock.now();
    await this.sweep(now);
    const w = await countAddressFailure(this.store.db, address, now, this.windowMs);
    const blockedFor = w.failures > this.max ? Math.max(1, Math.ceil((w.windowStart + this.windowMs - now) / 1000)) : 0;
    return { counted: { address, windowStart: w.windowStart }, blockedFor };
  }

  async forgive(counted: CountedFailure): Promise<void> {
    await forgiveAddressFailure(this.store.db, counted.address, counted.windowStart);
  }

  /** Ended windows go at most once a window, a bounded batch at a time. */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    await deleteEndedAddressWindows(this.store.db, now - this.windowMs);
  }
}
