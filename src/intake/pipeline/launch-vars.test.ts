import { describe, expect, it } from "vitest";
import { layerVars } from "./launch-vars.js";

describe("layerVars", () => {
  it("later layers win and the result is a fresh object", () => {
    const base = { a: "1", b: "1" };
    const out = layerVars(base, { b: "2", c: "2" }, {}, { c: "3" });
    expect(out).toEqual({ a: "1", b: "2", c: "3" });
    expect(out).not.toBe(base);
    out.a = "x";
    expect(base.a).toBe("1");
  });
});
