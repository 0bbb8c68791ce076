import { describe, expect, it } from "vitest";
import { ServiceError } from "./errors.js";
import { checkLine, checkName, checkText, printable } from "./names.js";

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
    ["zero-width space", "a\u200bb"],
    ["word joiner", "a\u2060b"],
    ["byte order mark inside", "a\ufeffb"],
    ["soft hyphen", "ad\u00admin"],
    ["left-to-right embedding", "a\u202ab"],
    ["paragraph separator", "a\u2029b"],
  ])("refuses %s with 400 naming the field", (_what, value) => {
    expect(refusal(value)).toEqual(["invalid_request", "name"]);
  });
});

const refusalOf = (check: (v: string, f: string) => string, value: string) => {
  try {
    check(value, "f");
    return undefined;
  } catch (err) {
    return err instanceof ServiceError ? err.code : err;
  }
};

describe("checkLine and checkText", () => {
  it.each([["\u001b[2J"], ["a\nb"], ["a\rb"], ["a\tb"], ["a\u202eb"], ["a\u0085b"], ["a\ud800"], ["a\u200bb"]])("a line refuses %j", (value) => {
    expect(refusalOf(checkLine, value)).toBe("invalid_request");
  });
  it("a line keeps what it is given, surrounding spaces and all", () => {
    expect(checkLine(" https://forge.example/a b ", "f")).toBe(" https://forge.example/a b ");
  });
  it.each([["line one\nline two"], ["a\tb"], ["Équipe ☕"]])("text takes %j", (value) => {
    expect(checkText(value, "f")).toBe(value);
  });
  it.each([["a\rb"], ["\u001b[31m"], ["a\u0000"], ["a\u007f"], ["a\u009b"], ["a\udc00"]])("text refuses %j", (value) => {
    expect(refusalOf(checkText, value)).toBe("invalid_request");
  });
});

describe("printable", () => {
  it("masks controls, bidi and other format characters, and lone surrogates", () => {
    expect(printable("a\u001b[31mb\u202ec\u200bd\u2066e\ud800f\u2028g")).toBe("a?[31mb?c?d?e?f?g");
    expect(printable("Équipe ☕ 東京")).toBe("Équipe ☕ 東京");
  });
});

describe("printable for a log", () => {
  it("keeps tab and line feed, masks the rest", () => {
    expect(printable("a\tb\nc\rd\u001b[0m\u202e", true)).toBe("a\tb\nc?d?[0m?");
  });
});
