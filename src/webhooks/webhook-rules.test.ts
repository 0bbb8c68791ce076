import { describe, expect, it } from "vitest";
import { ServiceError } from "../core/errors.js";
import { checkWebhookRules, namedBotIds, sealsSecret, webhookDefaults, type EditableConfig } from "./webhook-rules.js";
import type { ProviderName } from "./webhook-config.js";

function failure(provider: ProviderName, patch: Partial<EditableConfig>): string | undefined {
  try {
    checkWebhookRules(provider, { ...webhookDefaults(provider), ...patch });
  } catch (err) {
    if (err instanceof ServiceError) return err.field;
    throw err;
  }
  return undefined;
}

describe("webhook defaults", () => {
  it("follows the spec table", () => {
    expect(webhookDefaults("forge_a")).toMatchObject({
      sign_mode: "token",
      rate: 1.0,
      burst: 10,
      monthly_call_limit: 0,
      review_on_sync: false,
      overlap: "",
      min_replier_role: "developer",
      event_allowlist: [],
      enabled: true,
      wildcard_bots: false,
      bot_rules: null,
      branch_improve_as_pr: false,
      auto_implement_on_open: false,
    });
    expect(webhookDefaults("forge_b").sign_mode).toBe("hmac");
    expect(webhookDefaults("forge_c").sign_mode).toBe("hmac");
    expect(webhookDefaults("generic").sign_mode).toBe("token");
  });
});

describe("checkWebhookRules", () => {
  it.each<[ProviderName, Partial<EditableConfig>, string | undefined]>([
    ["forge_b", { sign_mode: "token" }, "sign_mode"],
    ["forge_c", { sign_mode: "token" }, "sign_mode"],
    ["forge_a", { sign_mode: "hmac" }, "sign_mode"],
    ["forge_a", { sign_mode: "standard" }, "sign_mode"],
    ["forge_b", { sign_mode: "standard" }, "sign_mode"],
    ["generic", { sign_mode: "standard" }, undefined],
    ["generic", { sign_mode: "hmac" }, undefined],
    ["generic", { sign_mode: "token" }, undefined],
    ["forge_b", { bot_ids: ["*"] }, "bot_ids"],
    ["forge_b", { bot_ids: ["*"], wildcard_bots: true }, undefined],
    ["forge_b", { bot_ids: ["*", "review-pr"], wildcard_bots: true }, "bot_ids"],
    ["forge_b", { bot_ids: ["review-pr"], default_bot_id: "converse" }, "default_bot_id"],
    ["forge_b", { bot_ids: ["review-pr"], default_bot_id: "review-pr" }, undefined],
    ["forge_b", { bot_ids: [], default_bot_id: "converse" }, "default_bot_id"],
    ["generic", { bot_ids: [], default_bot_id: "converse" }, "default_bot_id"],
    ["forge_b", { bot_ids: [], bot_rules: [rule("converse")] }, "bot_rules.0.bot_id"],
    ["forge_b", { bot_ids: ["*"], wildcard_bots: true, default_bot_id: "converse" }, undefined],
    ["forge_b", { bot_ids: ["review-pr"], bot_rules: [rule("converse")] }, "bot_rules.0.bot_id"],
    ["forge_b", { bot_ids: ["review-pr", "converse"], bot_rules: [rule("converse"), rule("converse")] }, "bot_rules.1.bot_id"],
    ["forge_b", { bot_ids: ["review-pr", "converse"], bot_rules: [rule("converse"), rule("review-pr")] }, undefined],
  ])("%s %j → %s", (provider, patch, field) => {
    expect(failure(provider, patch)).toBe(field);
  });

  it("says which sign modes the provider takes", () => {
    const message = (provider: ProviderName, sign_mode: EditableConfig["sign_mode"]) => {
      try {
        checkWebhookRules(provider, { ...webhookDefaults(provider), sign_mode });
      } catch (err) {
        return (err as ServiceError).message;
      }
    };
    expect(message("forge_b", "token")).toBe("forge_b signs the body (HMAC) only; sign_mode must be hmac");
    expect(message("forge_a", "hmac")).toBe("forge_a echoes the token only; sign_mode must be token");
  });

  it("lists every named bot with the field naming it", () => {
    const c = { ...webhookDefaults("forge_b"), bot_ids: ["review-pr", "x"], default_bot_id: "x", bot_rules: [rule("y")] };
    expect(namedBotIds(c)).toEqual([
      { id: "review-pr", field: "bot_ids.0" },
      { id: "x", field: "bot_ids.1" },
      { id: "x", field: "default_bot_id" },
      { id: "y", field: "bot_rules.0.bot_id" },
    ]);
    expect(namedBotIds({ ...c, bot_ids: ["*"], default_bot_id: null, bot_rules: null })).toEqual([]);
  });

  it("seals the secret of hmac configs and of every generic config", () => {
    expect(sealsSecret("forge_a", "token")).toBe(false);
    expect(sealsSecret("forge_b", "hmac")).toBe(true);
    expect(sealsSecret("generic", "token")).toBe(true);
  });
});

function rule(bot_id: string) {
  return {
    bot_id,
    events: [],
    commands: {},
    author_allowlist: [],
    author_denylist: [],
    author_scope: "shared" as const,
    label_filter: [],
    launch_vars: {},
  };
}
