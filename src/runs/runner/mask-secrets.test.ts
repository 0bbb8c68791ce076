import { describe, expect, it } from "vitest";
import { secretMask } from "./mask-secrets.js";

describe("secretMask", () => {
  const m = secretMask(["sk-ant-SECRET-123", "SECRET", ""]);

  it.each([
    ["every occurrence", "a sk-ant-SECRET-123 b sk-ant-SECRET-123", "a [redacted] b [redacted]"],
    ["a value inside a longer one, longest first", "sk-ant-SECRET-123 and SECRET", "[redacted] and [redacted]"],
    ["text without values unchanged", "nothing to hide", "nothing to hide"],
  ])("masks %s", (_label, text, want) => {
    expect(m.mask(text)).toBe(want);
  });

  it("drops the start of a cut buffer, where the end of a value may sit", () => {
    const raw = `-SECRET-123${"x".repeat(40)}`;
    const tail = m.tail(raw, true, 30);
    expect(tail).toBe("x".repeat(30));
    expect(m.tail("short sk-ant-SECRET-123", false, 100)).toBe("short [redacted]");
    expect(m.margin).toBe(17);
  });

  it("changes nothing with no values", () => {
    const none = secretMask([]);
    expect(none.margin).toBe(0);
    expect(none.tail("abcdef", true, 4)).toBe("cdef");
  });
});
