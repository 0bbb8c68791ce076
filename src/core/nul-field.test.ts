import { describe, expect, it } from "vitest";
import { nulField } from "./nul-field.js";

describe("nulField", () => {
  it.each([
    [{}, {}, undefined],
    [{ repo_url: "https://x/r.git", repo_ref: undefined }, { a: "b" }, undefined],
    [{ repo_url: "\u0000" }, {}, "repo_url"],
    [{ repo_url: "ok", repo_ref: "main\u0000" }, { a: "\u0000" }, "repo_ref"],
    [{ repo_url: "ok" }, { a: "x", b: "y\u0000z" }, "vars.b"],
    // U+2400 (the NUL symbol) and an escaped \0 are text, not NUL.
    [{ repo_ref: "\u2400" }, { a: "\\0" }, undefined],
  ])("%j %j → %s", (fields, vars, expected) => {
    expect(nulField(fields, vars)).toBe(expected);
  });
});
