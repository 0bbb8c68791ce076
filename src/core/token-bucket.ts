/** A token bucket's stored state: tokens left at `updatedAt` (epoch ms). */
export interface BucketState {
  tokens: number;
  updatedAt: number;
}

export type BucketVerdict =
  | { ok: true; next: BucketState }
  /** `retryAfterSeconds` is whole seconds until one token is back, at least 1. */
  | { ok: false; retryAfterSeconds: number };

/**
 * Takes one token from a bucket refilled at `ratePerSecond` up to `burst`. A bucket seen for
 * the first time (state undefined) starts full. Pure: the caller stores `next` only on ok.
 */
export function takeToken(state: BucketState | undefined, ratePerSecond: number, burst: number, now: number): BucketVerdict {
  const elapsed = state ? Math.max(0, now - state.updatedAt) / 1000 : 0;
  const available = state ? Math.min(burst, state.tokens + elapsed * ratePerSecond) : burst;
  if (available >= 1) return { ok: true, next: { tokens: available - 1, updatedAt: now } };
  const wait = ratePerSecond > 0 ? (1 - available) / ratePerSecond : Number.POSITIVE_INFINITY;
  return { ok: false, retryAfterSeconds: Number.isFinite(wait) ? Math.max(1, Math.ceil(wait - 1e-9)) : 3600 };
}
