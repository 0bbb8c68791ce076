import { describe, expect, it } from "vitest";
import { firstHeader, firstHeaderValue, isFormEncoded, readHeader } from "./headers.js";

describe("headers", () => {
  it("reads case-insensitively and takes the first of a repeated header", () => {
    expect(readHeader({ "x-github-event": "push" }, "X-GitHub-Event")).toBe("push");
    expect(readHeader({ "X-GitHub-Event": "push" }, "x-github-event")).toBe("push");
    expect(readHeader({ "x-a": ["one", "two"] }, "X-A")).toBe("one");
    expect(readHeader({ "x-a": undefined }, "X-A")).toBeUndefined();
  });

  it("firstHeader stops at the first present header, even an empty one", () => {
    const names = ["X-Primary", "X-Fallback"];
    expect(firstHeader({ "x-primary": "", "x-fallback": "good" }, names)).toEqual({ name: "X-Primary", value: "" });
    expect(firstHeader({ "x-fallback": "good" }, names)).toEqual({ name: "X-Fallback", value: "good" });
    expect(firstHeader({}, names)).toBeUndefined();
  });

  it("firstHeaderValue skips empty values (event names, delivery ids)", () => {
    expect(firstHeaderValue({ "x-a": " ", "x-b": " pull_request " }, ["X-A", "X-B"])).toBe("pull_request");
  });

  it.each([
    ["application/x-www-form-urlencoded", true],
    ["Application/X-WWW-Form-Urlencoded; charset=utf-8", true],
    ["application/json", false],
    [undefined, false],
  ])("isFormEncoded(%s) is %s", (type, want) => {
    expect(isFormEncoded(type === undefined ? {} : { "content-type": type })).toBe(want);
  });
});
