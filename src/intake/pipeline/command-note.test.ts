import { describe, expect, it } from "vitest";
import { isCommandNote, parseCommand } from "./command-note.js";

describe("isCommandNote", () => {
  it.each([
    ["/re-review", true],
    ["\n\n  /improve make it faster", true],
    ["> quoted text\n/re-review", true],
    ["> /re-review", false],
    ["please /re-review", false],
    ["@bot /re-review", false],
    ["", false],
    [undefined, false],
  ])("%j → %s", (body, want) => {
    expect(isCommandNote(body)).toBe(want);
  });
});

describe("parseCommand", () => {
  it.each([
    ["/re-review", { name: "re-review", args: "" }],
    ["/Re-Review   why take this lock?  \nmore text", { name: "re-review", args: "why take this lock?" }],
    ["> quoted\n\n/improve make it faster", { name: "improve", args: "make it faster" }],
    ["please /re-review", undefined],
    ["/", undefined],
    ["//re-review", undefined],
  ])("%j → %j", (body, want) => {
    expect(parseCommand(body)).toEqual(want);
  });
});
