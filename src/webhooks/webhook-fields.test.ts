import { describe, expect, it } from "vitest";
import { ServiceError } from "../core/errors.js";
import { parseProvider, parseWebhookFields } from "./webhook-fields.js";
import type { ProviderName } from "./webhook-config.js";

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof ServiceError && err.code === "invalid_request") return err.field;
    throw err;
  }
  return undefined;
}

describe("parseProvider", () => {
  it.each([
    ["forge_a", "forge_a"],
    ["gitlab", "forge_a"],
    ["GitHub", "forge_b"],
    ["forge_b", "forge_b"],
    ["forgejo", "forge_c"],
    ["gitea", "forge_c"],
    ["forge_c", "forge_c"],
    ["generic", "generic"],
  ])("%s is %s", (alias, canonical) => {
    expect(parseProvider(alias)).toBe(canonical);
  });

  it.each([["bitbucket"], [""], [3], [null]])("refuses %j", (v) => {
    expect(fieldOf(() => parseProvider(v))).toBe("provider");
  });
});

describe("parseWebhookFields", () => {
  const ok = (body: Record<string, unknown>, provider: ProviderName = "forge_b") => parseWebhookFields(body, provider);

  it("accepts and normalises the table's fields", () => {
    expect(
      ok({
        name: " Reviews ",
        rate: 0.5,
        burst: 1,
        monthly_call_limit: 0,
        overlap: "supersede",
        min_replier_role: "maintainer",
        review_request_logins: ["@svc-bot", "other"],
        forge_base_url: "https://git.example.com/",
        retry_jitter: null,
        bot_rules: [{ bot_id: "review-pr", events: ["pull_request"], commands: { "/re-review": "when_args_empty" } }],
        launch_vars: { PR_MODE: "inline", _x1: "" },
        project_allowlist: ["acme/api", "acme/*", "*"],
      }),
    ).toMatchObject({
      name: "Reviews",
      rate: 0.5,
      review_request_logins: ["svc-bot", "other"],
      forge_base_url: "https://git.example.com",
      bot_rules: [
        {
          bot_id: "review-pr",
          events: ["pull_request"],
          commands: { "re-review": "when_args_empty" },
          author_allowlist: [],
          author_denylist: [],
          author_scope: "shared",
          label_filter: [],
          launch_vars: {},
        },
      ],
      project_allowlist: ["acme/api", "acme/*", "*"],
    });
  });

  it.each([
    ["id"],
    ["tenant_id"],
    ["provider"],
    ["token_last4"],
    ["token"],
    ["token_hash"],
    ["sealed_secret"],
    ["provisioned_by"],
    ["created_at"],
    ["updated_at"],
    ["delivery_url"],
  ])("refuses read-only %s by name", (field) => {
    expect(fieldOf(() => ok({ [field]: "x" }))).toBe(field);
  });

  it("refuses unknown fields by name", () => {
    expect(fieldOf(() => ok({ colour: "red" }))).toBe("colour");
    expect(fieldOf(() => ok({ bot_rules: [{ bot_id: "review-pr", colour: 1 }] }))).toBe("bot_rules.0.colour");
  });

  it.each<[Record<string, unknown>, string]>([
    [{ rate: 0 }, "rate"],
    [{ rate: -1 }, "rate"],
    [{ rate: "1" }, "rate"],
    [{ burst: 0 }, "burst"],
    [{ burst: 1.5 }, "burst"],
    [{ monthly_call_limit: -1 }, "monthly_call_limit"],
    [{ overlap: "queue" }, "overlap"],
    [{ min_replier_role: "admin" }, "min_replier_role"],
    [{ enabled: "yes" }, "enabled"],
    [{ name: "" }, "name"],
    [{ project_allowlist: ["acme"] }, "project_allowlist.0"],
    [{ project_allowlist: ["acme/api", "a/b/c"] }, "project_allowlist.1"],
    [{ project_allowlist: ["*/api"] }, "project_allowlist.0"],
    [{ project_allowlist: ["acme/a*"] }, "project_allowlist.0"],
    [{ project_allowlist: ["acme/.."] }, "project_allowlist.0"],
    [{ launch_vars: { "bad-key": "x" } }, "launch_vars.bad-key"],
    [{ launch_vars: { ["A".repeat(65)]: "x" } }, `launch_vars.${"A".repeat(65)}`],
    [{ launch_vars: { K: "x".repeat(4097) } }, "launch_vars.K"],
    [{ operator_launch_vars: { K: 1 } }, "operator_launch_vars.K"],
    [{ launch_vars: { K: "a\u0000" } }, "launch_vars.K"],
    [{ operator_launch_vars: { K: "\u0000" } }, "operator_launch_vars.K"],
    [{ bot_rules: [{ bot_id: "x", launch_vars: { K: "\u0000b" } }] }, "bot_rules.0.launch_vars.K"],
    [{ forge_base_url: "ftp://git.example.com" }, "forge_base_url"],
    [{ forge_base_url: "not a url" }, "forge_base_url"],
    [{ bot_ids: ["Review"] }, "bot_ids.0"],
    [{ bot_rules: [{ events: [] }] }, "bot_rules.0.bot_id"],
    [{ bot_rules: [{ bot_id: "x", author_scope: "solo" }] }, "bot_rules.0.author_scope"],
    [{ bot_rules: [{ bot_id: "x", commands: { "re-review": "sometimes" } }] }, "bot_rules.0.commands.re-review"],
    [{ key_overrides: { Anthropic: "key_1" } }, "key_overrides.Anthropic"],
    [{ secret_overrides: { TOKEN: "" } }, "secret_overrides.TOKEN"],
    [{ retry_jitter: 1.5 }, "retry_jitter"],
    [{ event_allowlist: "pull_request" }, "event_allowlist"],
  ])("refuses %j naming %s", (body, field) => {
    expect(fieldOf(() => ok(body))).toBe(field);
  });

  it("lets GitLab (and generic callers) nest groups, and not the PR forges", () => {
    expect(ok({ project_allowlist: ["group/sub/repo", "group/sub/*"] }, "forge_a").project_allowlist).toEqual(["group/sub/repo", "group/sub/*"]);
    expect(ok({ project_allowlist: ["group/sub/repo"] }, "generic").project_allowlist).toEqual(["group/sub/repo"]);
    expect(fieldOf(() => ok({ project_allowlist: ["group/sub/repo"] }, "forge_c"))).toBe("project_allowlist.0");
  });

  it("accepts 256 vars and refuses 257", () => {
    const vars = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`V${i}`, "x"]));
    expect(Object.keys(ok({ launch_vars: vars(256) }).launch_vars!)).toHaveLength(256);
    expect(fieldOf(() => ok({ launch_vars: vars(257) }))).toBe("launch_vars");
  });

  it("clears nullable fields with null or an empty string", () => {
    expect(ok({ forge_base_url: "", default_bot_id: null, bot_rules: null, retry_max_attempts: null })).toEqual({
      forge_base_url: null,
      default_bot_id: null,
      bot_rules: null,
      retry_max_attempts: null,
    });
  });
});
