import { describe, expect, it } from "vitest";
import { fillVars, matchesFilter } from "./event-match.js";

const payload = { ref: "refs/heads/main", env: "prod", build: { number: 42, ok: true, tags: ["a", "b"] } };

describe("a subscription's filter", () => {
  it.each([
    ["no entries", {}, true],
    ["a top-level string", { env: "prod" }, true],
    ["a nested number", { "build.number": 42 }, true],
    ["a nested boolean", { "build.ok": true }, true],
    ["an array element", { "build.tags.1": "b" }, true],
    ["every entry at once", { env: "prod", ref: "refs/heads/main" }, true],
    ["a different value", { env: "staging" }, false],
    ["a number given as text", { "build.number": "42" }, false],
    ["a missing path", { "deploy.region": "eu" }, false],
    ["one entry of two failing", { env: "prod", ref: "refs/heads/dev" }, false],
  ])("%s", (_label, filter, expected) => {
    expect(matchesFilter(filter as Record<string, string>, payload)).toBe(expected);
  });
});

describe("a subscription's vars template", () => {
  it("fills the event's name and payload values, objects as JSON and missing paths as empty text", () => {
    const vars = fillVars(
      { TARGET: "{{payload.env}}", WHAT: "{{ event }} #{{payload.build.number}}", TAGS: "{{payload.build.tags}}", NONE: "[{{payload.nope}}]", PLAIN: "x" },
      { event: "deploy.finished", payload },
    );
    expect(vars).toEqual({ TARGET: "prod", WHAT: "deploy.finished #42", TAGS: '["a","b"]', NONE: "[]", PLAIN: "x" });
  });
});
