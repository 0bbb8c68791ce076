import { describe, expect, it } from "vitest";
import type { WebhookConfig } from "../../webhooks/webhook-config.js";
import { decideDelivery } from "./decide-delivery.js";
import { invalidHttpStatus } from "../pipeline/delivery-decision.js";
import type { GenericEvent } from "../../forges/shared/delivery-event.js";
import { deliveryContext, webhookConfig } from "../fixtures/fixtures.js";

const SHA = "ab".repeat(32);
const event = (body: Record<string, unknown>): GenericEvent => ({ provider: "generic", kind: "generic", body, rawSha256: SHA });
const decide = (body: Record<string, unknown>, config: Partial<WebhookConfig> = {}) =>
  decideDelivery(webhookConfig({ provider: "generic", sign_mode: "token", bot_ids: ["review-pr", "converse"], ...config }), event(body), deliveryContext());
const manyVars = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`v${i}`, "x"]));

describe("generic lane", () => {
  it("launches the named bot with the request's fields", () => {
    expect(
      decide({ bot: "converse", vars: { a: "1" }, idempotency_key: "req-7", repo_url: "https://x/r.git", repo_ref: "main", project_path: "acme/r" }),
    ).toEqual({
      kind: "launch",
      launches: [
        {
          botId: "converse",
          vars: { a: "1" },
          idempotencyKey: "generic|team_1|wh_cfg1|req-7",
          subjectId: "generic:req-7",
          projectPath: "acme/r",
          repoUrl: "https://x/r.git",
          repoRef: "main",
        },
      ],
    });
  });

  it("keys on the raw body's SHA-256 without an idempotency_key", () => {
    expect(decide({ bot: "converse" })).toMatchObject({ launches: [{ idempotencyKey: `generic|team_1|wh_cfg1|${SHA}`, projectPath: "" }] });
  });

  it("layers body vars, bot rule vars, operator_launch_vars, then launch_vars", () => {
    const d = decide(
      { bot: "converse", vars: { a: "body", b: "body", c: "body", d: "body" } },
      {
        bot_rules: [
          {
            bot_id: "converse",
            events: [],
            commands: {},
            author_allowlist: [],
            author_denylist: [],
            author_scope: "shared",
            label_filter: [],
            launch_vars: { b: "rule", c: "rule", d: "rule" },
          },
        ],
        operator_launch_vars: { c: "operator", d: "operator" },
        launch_vars: { d: "webhook" },
      },
    );
    expect(d).toMatchObject({ launches: [{ vars: { a: "body", b: "rule", c: "operator", d: "webhook" }, idempotencyKey: `generic|team_1|wh_cfg1|${SHA}` }] });
  });

  it.each([
    [{ vars: manyVars(256) }, "launch", undefined],
    [{ vars: manyVars(257) }, "invalid", "generic: too many vars"],
    [{ vars: { ["k".repeat(64)]: "x" } }, "launch", undefined],
    [{ vars: { ["k".repeat(65)]: "x" } }, "invalid", "bad var key"],
    [{ vars: { "1abc": "x" } }, "invalid", "bad var key"],
    [{ vars: { "a-b": "x" } }, "invalid", "bad var key"],
    [{ vars: { "": "x" } }, "invalid", "bad var key"],
    [{ vars: { _ok: "x".repeat(4096) } }, "launch", undefined],
    [{ vars: { big: "x".repeat(4097) } }, "invalid", "var value too large"],
    [{ vars: { utf8: "é".repeat(2048) } }, "launch", undefined],
    [{ vars: { utf8: "é".repeat(2049) } }, "invalid", "var value too large"],
    [{ repo_url: "https://x/r\u0000.git" }, "invalid", "generic: repo_url contains a NUL character"],
    [{ repo_ref: "\u0000" }, "invalid", "generic: repo_ref contains a NUL character"],
    [{ project_path: "acme/\u0000" }, "invalid", "generic: project_path contains a NUL character"],
    [{ idempotency_key: "k\u0000" }, "invalid", "generic: idempotency_key contains a NUL character"],
    [{ bot: "converse\u0000" }, "invalid", "generic: bot contains a NUL character"],
    [{ vars: { a: "x", b: "y\u0000" } }, "invalid", "generic: vars.b contains a NUL character"],
  ])("limits: %#", (body, kind, reason) => {
    const d = decide({ bot: "converse", ...body });
    expect(d.kind).toBe(kind);
    if (reason) expect(d).toMatchObject({ reason });
  });

  it.each([
    [{ bot: 5 }, "generic: bot must be a string"],
    [{ bot: "converse", vars: ["a"] }, "generic: vars must be an object"],
    [{ bot: "converse", vars: { a: 1 } }, "generic: var a must be a string"],
    [{ bot: "converse", idempotency_key: {} }, "generic: idempotency_key must be a string"],
  ])("wrong types are bad payloads: %j", (body, reason) => {
    expect(decide(body)).toEqual({ kind: "invalid", code: "bad_payload", reason });
  });

  it("missing bot is a 400 with no review-pr fallback", () => {
    const d = decide({});
    expect(d).toEqual({ kind: "invalid", code: "missing_bot", reason: "generic: missing bot" });
    expect(d.kind === "invalid" && invalidHttpStatus("generic", d.code)).toBe(400);
  });

  it("uses default_bot_id, then the single bot in scope", () => {
    expect(decide({}, { default_bot_id: "converse" })).toMatchObject({ launches: [{ botId: "converse" }] });
    expect(decide({}, { bot_ids: ["converse"] })).toMatchObject({ launches: [{ botId: "converse" }] });
  });

  it("a bot outside the scope is not permitted; wildcard needs wildcard_bots and a known bot", () => {
    expect(decide({ bot: "security-review" })).toEqual({
      kind: "invalid",
      code: "bot_not_permitted",
      reason: "bot not permitted: security-review (add it to the webhook's bot_ids)",
    });
    expect(decide({ bot: "security-review" }, { bot_ids: ["*"] })).toMatchObject({ code: "bot_not_permitted" });
    expect(decide({ bot: "security-review" }, { bot_ids: ["*"], wildcard_bots: true }).kind).toBe("launch");
    expect(decide({ bot: "no-such-bot" }, { bot_ids: ["*"], wildcard_bots: true })).toMatchObject({ code: "unknown_bot" });
  });

  it("project_allowlist applies to project_path", () => {
    expect(decide({ bot: "converse", project_path: "acme/r" }, { project_allowlist: ["acme/*"] }).kind).toBe("launch");
    expect(decide({ bot: "converse", project_path: "evil/r" }, { project_allowlist: ["acme/*"] }).kind).toBe("filtered");
    expect(decide({ bot: "converse" }, { project_allowlist: ["acme/*"] })).toEqual({ kind: "filtered", reason: "project not named in the payload" });
  });

  it("keeps a __proto__ var as a plain key", () => {
    const body = JSON.parse('{"bot":"converse","vars":{"__proto__":"x"}}') as Record<string, unknown>;
    const d = decide(body);
    const vars = d.kind === "launch" ? d.launches[0]?.vars : undefined;
    expect(vars && Object.getPrototypeOf(vars)).toBe(Object.prototype);
    expect(vars && Object.hasOwn(vars, "__proto__")).toBe(true);
  });
});
