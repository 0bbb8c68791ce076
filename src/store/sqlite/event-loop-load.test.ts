import { describe, expect, it } from "vitest";
import { EventLoopWatch } from "./event-loop-load.js";

describe("the event loop's load", () => {
  // Each row: the samples' utilizations in order, and whether the loop is busy after each.
  const rows: [string, number[], boolean[]][] = [
    ["idle at start, and while samples stay at or under 0.8", [0, 0.5, 0.8], [false, false, false]],
    ["busy after a sample over 0.8", [0.81], [true]],
    ["still busy while samples stay at or over 0.5", [0.9, 0.6, 0.5, 0.79], [true, true, true, true]],
    ["idle again after a sample under 0.5", [0.9, 0.49], [true, false]],
    ["idle again, busy only over 0.8 once more", [0.95, 0.3, 0.7, 0.85], [true, false, false, true]],
  ];
  it.each(rows)("%s", (_, samples, expected) => {
    const watch = new EventLoopWatch();
    expect(
      samples.map((u) => {
        watch.observe(u);
        return watch.busy;
      }),
    ).toEqual(expected);
  });

  it("is sampled from the process's event loop: busy while it spins, idle once it waits", async () => {
    const watch = new EventLoopWatch().start(20);
    // Spinning turns run back to back; waiting turns sleep in between, as an idle loop does.
    const until = async (busy: boolean, turn: () => Promise<unknown>) => {
      const deadline = Date.now() + 5000;
      while (watch.busy !== busy && Date.now() < deadline) await turn();
      return watch.busy;
    };
    const spin = () => {
      const end = performance.now() + 10;
      while (performance.now() < end);
      return new Promise((resolve) => setImmediate(resolve));
    };
    const wait = () => new Promise((resolve) => setTimeout(resolve, 10));
    try {
      expect(await until(true, spin)).toBe(true);
      expect(await until(false, wait)).toBe(false);
    } finally {
      watch.stop();
    }
  });
});
