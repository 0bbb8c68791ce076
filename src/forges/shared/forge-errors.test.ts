import { describe, expect, it } from "vitest";
import { ForgeFailure, httpFailure, rateLimitWaitMs, toForgeError } from "./forge-errors.js";

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

describe("rateLimitWaitMs", () => {
  it.each([
    ["Retry-After in seconds", { "retry-after": "30" }, 30_000],
    ["Retry-After as a date", { "retry-after": new Date(NOW + 90_000).toUTCString() }, 90_000],
    ["GitHub's exhausted quota", { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(NOW / 1000 + 120) }, 120_000],
    ["GitLab's exhausted quota", { "ratelimit-remaining": "0", "ratelimit-reset": String(NOW / 1000 + 5) }, 5_000],
    ["a quota not yet spent", { "x-ratelimit-remaining": "12", "x-ratelimit-reset": String(NOW / 1000 + 120) }, undefined],
    ["a reset already past", { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(NOW / 1000 - 5) }, 0],
    ["nothing", {}, undefined],
  ])("%s", (_name, headers, wait) => {
    expect(rateLimitWaitMs(headers, NOW)).toBe(wait);
    expect(rateLimitWaitMs(new Headers(headers), NOW)).toBe(wait);
  });
});

describe("httpFailure", () => {
  it.each([
    [500, {}, "forge_unavailable"],
    [503, {}, "forge_unavailable"],
    [401, {}, "forge_denied"],
    [403, {}, "forge_denied"],
    [403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(NOW / 1000 + 60) }, "rate_limited"],
    [403, { "retry-after": "60" }, "rate_limited"],
    [429, {}, "rate_limited"],
    [404, {}, "not_found"],
    [410, {}, "not_found"],
    [400, {}, "forge_rejected"],
    [422, {}, "forge_rejected"],
  ])("%i %j → %s", (status, headers, code) => {
    expect(httpFailure({ status, headers }, NOW).code).toBe(code);
  });
});

describe("toForgeError", () => {
  it("finds our own failure however deep a library wrapped it", () => {
    const ours = new ForgeFailure({ code: "not_found", reason: "no thread" });
    const wrapped = Object.assign(new Error("HttpError"), { status: 500, cause: Object.assign(new Error("x"), { cause: ours }) });
    expect(toForgeError(wrapped, () => ({ status: 500, headers: {} }), NOW)).toBe(ours.error);
  });

  it("reads a library's HTTP failure, else calls the call failed", () => {
    expect(toForgeError(new Error("boom"), () => ({ status: 404, headers: {} }), NOW).code).toBe("not_found");
    expect(toForgeError(new TypeError("boom"), () => undefined, NOW)).toEqual({
      code: "forge_unavailable",
      reason: "the forge call failed without an answer (TypeError)",
    });
  });
});
