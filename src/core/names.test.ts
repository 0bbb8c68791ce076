import { describe, expect, it } from "vitest";
import { ServiceError } from "./errors.js";
import { checkName } from "./names.js";

const refusal = (value: string) => {
  try {
    checkName(value, "name");
    return undefined;
  } catch (err) {
    return err instanceof ServiceError ? [err.code, err.field] : err;
  }
};

describe("checkName", () => {
  it.each([
    ["Acme", "Acme"],
    ["  Acme Corp  ", "Acme Corp"],
    ["Équipe ☕ 東京", "Équipe ☕ 東京"],
    ["😀".repeat(200), "😀".repeat(200)],
    ["a\u200db", "a\u200db"],
  ])("takes %j as %j", (value, want) => {
    expect(checkName(value)).toBe(want);
  });

  it.each([
    ["empty", ""],
    ["whitespace only", " \t "],
    ["201 characters", "x".repeat(201)],
    ["NUL", "a\u0000b"],
    ["CR LF", "a\r\nb"],
    ["tab inside", "a\tb"],
    ["ANSI escape", "\u001b[31mred"],
    ["DEL", "a\u007fb"],
    ["C1 control", "a\u0085b"],
    ["right-to-left override", "a\u202eb"],
    ["isolate", "a\u2066b\u2069"],
    ["right-to-left mark", "a\u200fb"],
    ["Arabic letter mark", "a\u061cb"],
    ["line separator", "a\u2028b"],
    ["lone high surrogate", "a\ud800b"],
    ["lone low surrogate", "a\udc00"],
  ])("refuses %s with 400 naming the field", (_what, value) => {
    expect(refusal(value)).toEqual(["invalid_request", "name"]);
  });
});
