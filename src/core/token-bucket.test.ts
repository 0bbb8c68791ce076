import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type BucketState, perSecond, takeToken } from "./token-bucket.js";

describe("takeToken", () => {
  it("starts full: burst tokens, then empty", () => {
    let state: BucketState | undefined;
    for (let i = 0; i < 10; i++) {
      const v = takeToken(state, perSecond(1, 10), 0);
      expect(v.ok).toBe(true);
      if (v.ok) state = v.next;
    }
    const denied = takeToken(state, perSecond(1, 10), 0);
    expect(denied).toEqual({ ok: false, retryAfterSeconds: 1 });
  });

  it.each([
    // rate/s, tokens left, elapsed ms, ok?, retry-after
    [1, 0, 999, false, 1],
    [1, 0, 1000, true, undefined],
    [0.5, 0, 0, false, 2],
    [0.5, 0, 1000, false, 1],
    [0.5, 0, 2000, true, undefined],
    [1 / 60, 0, 0, false, 60],
    [1 / 60, 0.5, 0, false, 30],
    [10, 0.95, 0, false, 1],
  ])("rate %f with %f tokens after %i ms → ok %s, retry %s", (rate, tokens, elapsed, ok, retry) => {
    const v = takeToken({ tokens, updatedAt: 0 }, perSecond(rate, 10), elapsed);
    expect(v.ok).toBe(ok);
    if (!v.ok) expect(v.retryAfterSeconds).toBe(retry);
  });

  it("never exceeds burst however long it idles", () => {
    const v = takeToken({ tokens: 0, updatedAt: 0 }, perSecond(5, 3), 1e9);
    expect(v.ok && v.next.tokens).toBe(2);
  });

  it("admits at most burst + rate × elapsed over any schedule", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 200 }), fc.integer({ min: 1, max: 20 }), (gaps, burst) => {
        let state: BucketState | undefined;
        let now = 0;
        let admitted = 0;
        for (const gap of gaps) {
          now += gap;
          const v = takeToken(state, perSecond(2, burst), now);
          if (v.ok) {
            admitted++;
            state = v.next;
          }
        }
        expect(admitted).toBeLessThanOrEqual(burst + Math.floor((now / 1000) * 2) + 1);
      }),
    );
  });
});
