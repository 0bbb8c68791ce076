/** A token bucket's stored state: tokens left at `updatedAt` (epoch ms). */
export interface BucketState {
  tokens: number;
  updatedAt: number;
}

export interface BucketShape {
  /** Tokens added per millisecond. */
  refillPerMs: number;
  /** Most tokens the bucket holds; a new bucket starts full. */
  capacity: number;
  /** Tokens one take costs (the launch gate counts in 1/60000 of a launch to stay integral). */
  cost: number;
}

export type BucketVerdict =
  | { ok: true; next: BucketState }
  /** `retryAfterSeconds` is whole seconds until the cost is back, at least 1. */
  | { ok: false; retryAfterSeconds: number };

/** Refills, then takes `cost`. Pure: the caller stores `next` only when ok. */
export function takeToken(state: BucketState | undefined, shape: BucketShape, now: number): BucketVerdict {
  const { refillPerMs, capacity, cost } = shape;
  const elapsed = state ? Math.max(0, now - state.updatedAt) : 0;
  const available = state ? Math.min(capacity, state.tokens + elapsed * refillPerMs) : capacity;
  if (available >= cost) return { ok: true, next: { tokens: available - cost, updatedAt: now } };
  if (refillPerMs <= 0) return { ok: false, retryAfterSeconds: 3600 };
  // The epsilon keeps float dust (2.0000000001 s) from adding a whole second.
  const seconds = (cost - available) / refillPerMs / 1000;
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(seconds - 1e-9)) };
}

/** A bucket of `burst` deliveries refilled at `ratePerSecond` (a webhook's rate and burst). */
export const perSecond = (ratePerSecond: number, burst: number): BucketShape => ({
  refillPerMs: ratePerSecond / 1000,
  capacity: burst,
  cost: 1,
});
