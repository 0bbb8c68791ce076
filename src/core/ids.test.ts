import { describe, expect, it } from "vitest";
import { randomIds } from "./ids.js";

describe("randomIds", () => {
  it("sorts in creation order, within one millisecond too", () => {
    const ids = Array.from({ length: 5000 }, () => randomIds.next("dlv"));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toMatch(/^dlv_[0-9a-z]{22}$/);
  });
});
