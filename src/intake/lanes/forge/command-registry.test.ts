import { describe, expect, it } from "vitest";
import { deliveryContext, webhookConfig } from "../../fixtures/fixtures.js";
import type { BotRule } from "../../../webhooks/webhook-config.js";
import { isApproval, knownCommands, routeCommand } from "./command-registry.js";

const { isKnownBot } = deliveryContext();
const rule = (bot_id: string, over: Partial<BotRule> = {}): BotRule => ({
  bot_id,
  events: [],
  commands: {},
  author_allowlist: [],
  author_denylist: [],
  author_scope: "shared",
  label_filter: [],
  launch_vars: {},
  ...over,
});
const all = ["review-pr", "converse", "improve"];

describe("routeCommand: the command registry", () => {
  it.each([
    [all, "re-review", "", [{ botId: "review-pr", when: "when_args_empty" }]],
    [all, "re-review", "why this lock?", [{ botId: "converse", when: "when_args_present" }]],
    [all, "improve", "", [{ botId: "improve", when: "always" }]],
    [all, "improve", "make it faster", [{ botId: "improve", when: "always" }]],
  ])("legacy config %j: /%s %j", (bot_ids, name, args, bots) => {
    expect(routeCommand(webhookConfig({ bot_ids }), isKnownBot, { name, args })).toEqual({
      ok: true,
      bots: bots.map((b) => ({ ...b, ruleVars: {} })),
      fanOut: false,
    });
  });

  it("an unknown command, and a known one whose bot is not permitted, say which", () => {
    expect(routeCommand(webhookConfig({ bot_ids: all }), isKnownBot, { name: "frobnicate", args: "" })).toEqual({
      ok: false,
      reason: "unknown command: /frobnicate",
      unknown: true,
    });
    expect(routeCommand(webhookConfig({ bot_ids: ["review-pr"] }), isKnownBot, { name: "re-review", args: "why?" })).toEqual({
      ok: false,
      reason: "/re-review: bot not permitted on this webhook: converse",
      unknown: false,
    });
  });

  it("a fan-out rule's own command map replaces the default; a rule naming none keeps it", () => {
    const config = webhookConfig({
      bot_ids: ["review-pr", "security-review"],
      bot_rules: [
        rule("review-pr", { launch_vars: { depth: "full" } }),
        rule("security-review", { commands: { audit: "always", "re-review": "when_args_empty" } }),
      ],
    });
    expect(routeCommand(config, isKnownBot, { name: "re-review", args: "" })).toEqual({
      ok: true,
      bots: [
        { botId: "review-pr", ruleVars: { depth: "full" }, when: "when_args_empty" },
        { botId: "security-review", ruleVars: {}, when: "when_args_empty" },
      ],
      fanOut: true,
    });
    expect(routeCommand(config, isKnownBot, { name: "audit", args: "" })).toMatchObject({ ok: true, bots: [{ botId: "security-review" }] });
    expect(knownCommands(config, isKnownBot)).toEqual(["audit", "re-review"]);
  });

  it.each([
    ["approve", "", true],
    ["re-review", "approve looks fine", true],
    ["re-review", "approved?", false],
    ["improve", "", false],
  ])("/%s %j is the approve subcommand: %s", (name, args, want) => {
    expect(isApproval({ name, args })).toBe(want);
  });
});
