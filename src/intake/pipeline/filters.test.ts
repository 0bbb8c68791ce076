import { describe, expect, it } from "vitest";
import { authorAllowed, defaultEventAllowlist, labelAllowed, loginMatches, notHeld, projectAllowed } from "./filters.js";

describe("filters", () => {
  it("default event allowlists follow the spec", () => {
    expect(defaultEventAllowlist("forge_a")).toEqual(["merge_request", "note"]);
    expect(defaultEventAllowlist("forge_b")).toEqual(["pull_request", "issues"]);
    expect(defaultEventAllowlist("forge_c")).toEqual(["pull_request", "issues"]);
  });

  it.each([
    [["acme/app"], "ACME/App", true],
    [["acme/*"], "acme/app", true],
    [["acme/*"], "acme/sub/app", true],
    [["acme/*"], "acme/", false],
    [["acme/*"], "acmex/app", false],
    [["*"], "x/y", true],
    [[], undefined, true],
    [["acme/*"], undefined, false],
  ])("projectAllowed(%j, %s) = %s", (list, path, want) => {
    expect(projectAllowed(list, path).pass).toBe(want);
  });

  it.each([
    [["Alice"], "alice", true],
    [["@alice"], "ALICE", true],
    [["*"], undefined, true],
    [["alice"], undefined, false],
    [["alice"], "bob", false],
  ])("authorAllowed(%j, %s) = %s", (list, author, want) => {
    expect(authorAllowed(list, author).pass).toBe(want);
  });

  it.each([
    ["*bot", "renovate-bot", true],
    ["*bot", "bot", false],
    ["alice", "ALICE", true],
    ["ali*", "alice", false],
  ])("loginMatches(%s, %s) = %s", (p, l, want) => {
    expect(loginMatches(p, l)).toBe(want);
  });

  it.each([
    [[], ["hold"], true],
    [["hold"], ["HOLD"], false],
    [["hold"], ["other"], true],
    [["hold"], undefined, true],
    [["*"], undefined, false],
    [["*"], [], false],
  ])("notHeld(%j, %j) passes: %s", (holds, labels, want) => {
    expect(notHeld(holds, labels).pass).toBe(want);
  });

  it.each([
    [[], "x", true],
    [["*"], "x", true],
    [["Bot"], "bot", true],
    [["bot"], "other", false],
  ])("labelAllowed(%j, %s) = %s", (list, label, want) => {
    expect(labelAllowed(list, label)).toBe(want);
  });
});
