import { describe, expect, it } from "vitest";
import { BoundedMap } from "./bounded-map.js";

describe("BoundedMap", () => {
  it("forgets the oldest inserted key when a new one comes in full", () => {
    const m = new BoundedMap<string, number>(2);
    m.set("a", 1);
    m.set("b", 2);
    m.set("c", 3);
    expect([m.has("a"), m.get("b"), m.get("c"), m.size]).toEqual([false, 2, 3, 2]);
  });

  it("keeps a key set again in its place, and evicts nothing for it", () => {
    const m = new BoundedMap<string, number>(2);
    m.set("a", 1);
    m.set("b", 2);
    m.set("a", 10);
    expect([m.get("a"), m.get("b"), m.size]).toEqual([10, 2, 2]);
    m.set("c", 3);
    expect([m.has("a"), m.get("b"), m.get("c")]).toEqual([false, 2, 3]);
  });

  it("deletes one key, or every key a predicate picks", () => {
    const m = new BoundedMap<string, number>(5);
    for (const [k, v] of [
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ] as const)
      m.set(k, v);
    m.delete("a");
    m.deleteWhere((v) => v > 2);
    expect([m.has("a"), m.get("b"), m.has("c"), m.size]).toEqual([false, 2, false, 1]);
  });
});
