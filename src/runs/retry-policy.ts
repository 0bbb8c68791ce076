import type { RetryPolicy } from "../config/config.js";

/** One layer's values as stored: null is "not set here". */
export interface RetryLayer {
  retry_usage_window: number | boolean | null;
  retry_max_attempts: number | null;
  /** Seconds. */
  retry_max_wait: number | null;
  retry_jitter: number | null;
}

/** The platform's policy, then the org's values, then the webhook's: only values set in a layer override the ones below. */
export function resolveRetryPolicy(platform: RetryPolicy, ...layers: (RetryLayer | undefined)[]): RetryPolicy {
  let p = platform;
  for (const l of layers) {
    if (!l) continue;
    p = {
      usageWindow: l.retry_usage_window == null ? p.usageWindow : Boolean(l.retry_usage_window),
      maxAttempts: l.retry_max_attempts ?? p.maxAttempts,
      maxWaitMs: l.retry_max_wait == null ? p.maxWaitMs : l.retry_max_wait * 1000,
      jitter: l.retry_jitter ?? p.jitter,
    };
  }
  return p;
}

/** A short wait still spreads its jitter over at least a minute. */
const MIN_JITTER_SPAN_MS = 60_000;

export type RetryPlan = { kind: "arm"; at: number } | { kind: "off" } | { kind: "give_up"; reason: string };

/**
 * What to do with a run blocked until `resetAt`, after `retriesSoFar` automatic retries: arm a
 * retry at the reset plus jitter, leave it for a person (policy off), or give up (attempts used,
 * or the window resets too far away).
 */
export function planRetry(policy: RetryPolicy, retriesSoFar: number, resetAt: number, now: number, random: () => number = Math.random): RetryPlan {
  if (!policy.usageWindow) return { kind: "off" };
  if (retriesSoFar >= policy.maxAttempts) return { kind: "give_up", reason: `usage-window retries exhausted (${policy.maxAttempts})` };
  const wait = Math.max(0, resetAt - now);
  if (wait > policy.maxWaitMs) return { kind: "give_up", reason: `the usage window resets in ${Math.ceil(wait / 1000)} s, past retry_max_wait` };
  const at = Math.max(now, resetAt) + Math.floor(random() * policy.jitter * Math.max(wait, MIN_JITTER_SPAN_MS));
  return { kind: "arm", at };
}
