import { describe, expect, it } from "vitest";
import { BoundedWork } from "./bounded-work.js";
import { ServiceError } from "./errors.js";

describe("BoundedWork", () => {
  it("runs at most `running` at once, queues `waiting`, and refuses the rest at once with server_busy", async () => {
    const work = new BoundedWork(2, 3, 7);
    let now = 0;
    let peak = 0;
    const gates: (() => void)[] = [];
    const job = () =>
      work.run(async () => {
        now++;
        peak = Math.max(peak, now);
        await new Promise<void>((r) => gates.push(r));
        now--;
        return "done";
      });
    const settled = Array.from({ length: 8 }, () =>
      job().then(
        (v) => v,
        (e: unknown) => e,
      ),
    );
    await new Promise((r) => setImmediate(r));
    expect(work.load).toEqual({ running: 2, waiting: 3 });
    const refused = await Promise.race([Promise.all(settled.slice(5)), new Promise((r) => setTimeout(() => r("waited"), 1000))]);
    expect(refused).toHaveLength(3);
    for (const e of refused as unknown[]) expect(e).toMatchObject({ code: "server_busy", retryAfter: 7 });
    expect((refused as unknown[])[0]).toBeInstanceOf(ServiceError);
    while (gates.length > 0 || work.load.running > 0) {
      gates.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    expect(await Promise.all(settled.slice(0, 5))).toEqual(["done", "done", "done", "done", "done"]);
    expect(peak).toBe(2);
    expect(work.load).toEqual({ running: 0, waiting: 0 });
  });

  it("frees the slot when the work throws", async () => {
    const work = new BoundedWork(1, 0);
    await expect(work.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await work.run(async () => 1)).toBe(1);
  });
});
