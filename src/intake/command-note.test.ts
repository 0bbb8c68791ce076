import { describe, expect, it } from "vitest";
import { isCommandNote } from "./command-note.js";

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
