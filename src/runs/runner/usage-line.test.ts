import { describe, expect, it } from "vitest";
import { BotsFileError, parseBotsFile } from "./bot-commands.js";
import { outcomeOf } from "./runner.js";
import { parseUsageLine, parseUsageWindowLine, usageOf, usageWire } from "./usage-line.js";

describe("parseUsageLine", () => {
  it("reads a usage line into micro-USD and typed fields", () => {
    const line = JSON.stringify({
      usage: {
        id: "u1",
        cost_usd: 0.0012,
        input_tokens: 120,
        output_tokens: 30,
        aggregate_tokens: 900,
        fingerprint: "fp",
        provider: "anthropic",
        tier: "pool",
        repo: "a/b",
        amount_type: "estimate",
      },
    });
    expect(parseUsageLine(line)).toEqual({
      id: "u1",
      costMicro: 1200,
      inputTokens: 120,
      outputTokens: 30,
      aggregateTokens: 900,
      fingerprint: "fp",
      provider: "anthropic",
      tier: "pool",
      repo: "a/b",
      amountType: "estimate",
    });
  });

  it("treats negative or missing amounts as unknown (0), an unknown tier as unattributed, other lines as output", () => {
    expect(parseUsageLine('{"usage": {"cost_usd": -5, "tier": "gold"}}')).toMatchObject({ costMicro: 0, tier: null, amountType: "metered" });
    expect(parseUsageLine("hello usage")).toBeUndefined();
    expect(parseUsageLine('{"usage": 3}')).toBeUndefined();
    expect(parseUsageLine('{"usage": {')).toBeUndefined();
  });
});

describe("parseBotsFile", () => {
  it("reads commands, timeouts, env and providers, skipping $comment keys", () => {
    const bots = parseBotsFile(
      JSON.stringify({
        $comment: "x",
        "review-pr": { command: ["node", "a.mjs"], timeout_seconds: 2, env: { A: "1" }, providers: ["anthropic", "openai", "anthropic"] },
      }),
      "/b",
    );
    expect([...bots.values()]).toEqual([
      { id: "review-pr", command: ["node", "a.mjs"], timeoutMs: 2000, env: { A: "1" }, providers: ["anthropic", "openai"], cwd: "/b" },
    ]);
    expect(parseBotsFile(JSON.stringify({ a: { command: ["x"] } }), "/b").get("a")?.providers).toEqual([]);
  });

  it.each([
    ["not json", "{"],
    ["empty command", JSON.stringify({ a: { command: [] } })],
    ["bad timeout", JSON.stringify({ a: { command: ["x"], timeout_seconds: 0 } })],
    ["bad env", JSON.stringify({ a: { command: ["x"], env: { A: 1 } } })],
    ["bad id", JSON.stringify({ "Bad Id": { command: ["x"] } })],
    ["providers not a list", JSON.stringify({ a: { command: ["x"], providers: "anthropic" } })],
    ["a provider in upper case", JSON.stringify({ a: { command: ["x"], providers: ["Anthropic"] } })],
  ])("refuses %s", (_name, text) => {
    expect(() => parseBotsFile(text, "/b")).toThrow(BotsFileError);
  });
});

describe("parseUsageWindowLine", () => {
  it.each([
    ['{"usage_window": {"provider": "anthropic", "reset_at": "2026-11-21T17:00:00Z"}}', { provider: "anthropic", resetAt: Date.UTC(2026, 10, 21, 17) }],
    ['  {"usage_window": {"reset_at": "2026-11-21T17:00:00+01:00"}}', { provider: "unknown", resetAt: Date.UTC(2026, 10, 21, 16) }],
    ['{"usage_window": {"provider": "x", "reset_at": "soon"}}', undefined],
    ['{"usage_window": {"provider": "x"}}', undefined],
    ['{"usage": {"cost_usd": 1}}', undefined],
    ["usage_window exhausted", undefined],
  ])("%s", (line, expected) => {
    expect(parseUsageWindowLine(line)).toEqual(expected);
  });
});

describe("outcomeOf", () => {
  const base = { usage: [], stderrTail: "" };
  it.each([
    [{ kind: "exited", code: 0, ...base }, undefined, { status: "succeeded" }],
    [{ kind: "exited", code: 75, ...base }, undefined, { status: "failed_resumable", failureCode: "BOT_TEMPFAIL" }],
    [{ kind: "exited", code: 2, ...base }, undefined, { status: "failed", failureCode: "BOT_FAILED" }],
    [
      { kind: "exited", code: 153, ...base, limitHit: "killed: file size limit 1 GiB (SIGXFSZ, exit code 153)" },
      undefined,
      { status: "failed", failureCode: "RESOURCE_LIMIT", detail: "killed: file size limit 1 GiB (SIGXFSZ, exit code 153)" },
    ],
    [{ kind: "timed_out", ...base }, undefined, { status: "failed", failureCode: "TIMEOUT" }],
    [{ kind: "aborted", ...base }, "cancel", { status: "cancelled" }],
    [{ kind: "aborted", ...base }, "shutdown", { status: "failed_resumable", failureCode: "RUNNER_STOPPED" }],
    [{ kind: "spawn_failed", message: "ENOENT", ...base }, undefined, { status: "failed", failureCode: "BOT_START_FAILED" }],
    [
      { kind: "exited", code: 75, ...base, usageWindow: { provider: "anthropic", resetAt: Date.UTC(2026, 10, 21, 17) } },
      undefined,
      { status: "failed_resumable", failureCode: "USAGE_WINDOW", detail: "anthropic usage window exhausted until 2026-11-21T17:00:00.000Z" },
    ],
    [{ kind: "exited", code: 1, ...base, usageWindow: { provider: "x", resetAt: 0 } }, undefined, { status: "failed_resumable", failureCode: "USAGE_WINDOW" }],
    [{ kind: "exited", code: 0, ...base, usageWindow: { provider: "x", resetAt: 0 } }, undefined, { status: "succeeded" }],
  ] as const)("%o (%s) → %o", (exit, reason, want) => {
    expect(outcomeOf(exit as never, reason)).toMatchObject(want);
  });
});

describe("a usage line passed on by a remote runner", () => {
  it("reads back as the line the bot printed", () => {
    for (const line of [
      '{"usage":{"id":"a","cost_usd":0.000123,"input_tokens":5,"output_tokens":7,"aggregate_tokens":9,"fingerprint":"fp","provider":"p","tier":"org","repo":"a/b","amount_type":"estimate"}}',
      '{"usage":{"cost_usd":12.5}}',
      '{"usage":{"cost_usd":-3,"tier":"nope","amount_type":"metered"}}',
    ]) {
      const parsed = parseUsageLine(line)!;
      expect(usageOf(usageWire(parsed))).toEqual(parsed);
    }
  });
});
