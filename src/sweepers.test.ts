import { afterEach, describe, expect, it, vi } from "vitest";
import { Periodic } from "./core/periodic.js";
import { Metrics } from "./metrics/metrics.js";
import { Sweepers } from "./sweepers.js";

afterEach(() => vi.useRealTimers());

const passes = async (metrics: Metrics) =>
  Object.fromEntries((await metrics.sweeperPasses.get()).values.map((v) => [`${v.labels.sweeper}/${v.labels.result}`, v.value]));

describe("Sweepers", () => {
  it("starts every sweeper of the catalog, counts each timed pass under its name, logs a failed one and stops them all", async () => {
    vi.useFakeTimers();
    const metrics = new Metrics();
    const warn = vi.fn();
    let steady = 0;
    let flaky = 0;
    const sweepers = new Sweepers(
      {
        steady: new Periodic(1_000, async () => steady++),
        flaky: new Periodic(2_000, async () => {
          flaky++;
          throw new Error("store unavailable");
        }),
      },
      { log: { warn }, metrics },
    ).start();

    await vi.advanceTimersByTimeAsync(4_000);
    expect({ steady, flaky }).toEqual({ steady: 4, flaky: 2 });
    expect(await passes(metrics)).toEqual({ "steady/ok": 4, "flaky/failed": 2 });
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[0]).toEqual([{ err: new Error("store unavailable"), sweeper: "flaky" }, "flaky sweep failed; retried at the next tick"]);

    await sweepers.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect({ steady, flaky }).toEqual({ steady: 4, flaky: 2 });
  });

  it("does not overlap a slow pass with the next tick", async () => {
    vi.useFakeTimers();
    const metrics = new Metrics();
    let started = 0;
    const sweepers = new Sweepers(
      {
        slow: new Periodic(1_000, () => {
          started++;
          return new Promise((resolve) => setTimeout(resolve, 3_500));
        }),
      },
      { log: { warn: vi.fn() }, metrics },
    ).start();
    await vi.advanceTimersByTimeAsync(4_000);
    expect(started).toBe(1);
    const stopped = sweepers.stop();
    await vi.advanceTimersByTimeAsync(1_000);
    await stopped;
    expect(started).toBe(1);
  });
});
