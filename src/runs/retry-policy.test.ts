import { describe, expect, it } from "vitest";
import { planRetry, resolveRetryPolicy } from "./retry-policy.js";
import type { RetryPolicy } from "../config/config.js";

const platform: RetryPolicy = { usageWindow: true, maxAttempts: 3, maxWaitMs: 6 * 3600_000, jitter: 0.1 };
const unset = { retry_usage_window: null, retry_max_attempts: null, retry_max_wait: null, retry_jitter: null };

describe("the retry policy's layers", () => {
  it.each([
    ["the platform's alone", [], platform],
    ["an org layer with nothing set", [unset], platform],
    ["the org's values over the platform's", [{ ...unset, retry_max_attempts: 5, retry_usage_window: 0 }], { ...platform, maxAttempts: 5, usageWindow: false }],
    [
      "the webhook's over the org's, the org's where the webhook sets nothing",
      [
        { ...unset, retry_max_attempts: 5, retry_max_wait: 60 },
        { ...unset, retry_max_attempts: 1, retry_jitter: 0 },
      ],
      { ...platform, maxAttempts: 1, maxWaitMs: 60_000, jitter: 0 },
    ],
    [
      "a webhook turning retries back on",
      [
        { ...unset, retry_usage_window: false },
        { ...unset, retry_usage_window: true },
      ],
      platform,
    ],
    ["a missing webhook layer", [{ ...unset, retry_max_attempts: 0 }, undefined], { ...platform, maxAttempts: 0 }],
  ])("%s", (_label, layers, expected) => {
    expect(resolveRetryPolicy(platform, ...layers)).toEqual(expected);
  });
});

describe("a blocked run's retry plan", () => {
  const now = 1_000_000;
  it.each([
    ["policy off", { ...platform, usageWindow: false }, 0, now + 60_000, 0.5, { kind: "off" }],
    ["armed at the reset with no jitter drawn", platform, 0, now + 600_000, 0, { kind: "arm", at: now + 600_000 }],
    ["armed at the reset plus jitter of the wait", platform, 2, now + 600_000, 0.5, { kind: "arm", at: now + 600_000 + 30_000 }],
    ["a short wait jittered over a minute", platform, 0, now + 1000, 1, { kind: "arm", at: now + 1000 + 6000 }],
    ["a reset already past: now", { ...platform, jitter: 0 }, 0, now - 5000, 0.9, { kind: "arm", at: now }],
    ["attempts used", platform, 3, now + 60_000, 0, { kind: "give_up", reason: "usage-window retries exhausted (3)" }],
    [
      "a window past retry_max_wait",
      { ...platform, maxWaitMs: 60_000 },
      0,
      now + 61_000,
      0,
      { kind: "give_up", reason: "the usage window resets in 61 s, past retry_max_wait" },
    ],
  ] as const)("%s", (_label, policy, retries, resetAt, draw, expected) => {
    expect(planRetry(policy, retries, resetAt, now, () => draw)).toEqual(expected);
  });
});
