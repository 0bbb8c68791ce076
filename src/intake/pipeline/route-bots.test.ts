import { describe, expect, it } from "vitest";
import type { BotRule, WebhookConfig } from "../../webhooks/webhook-config.js";
import { decideDelivery } from "../lanes/decide-delivery.js";
import { deliveryContext, githubExample, loadGithubExamples, forgeEvent, webhookConfig } from "../fixtures/fixtures.js";
import { botPermitted } from "./route-bots.js";

const examples = loadGithubExamples();
const SHA = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
const BASE_KEY = `gh|team_1|wh_cfg1|Codertocat/Hello-World|2|${SHA}`;

const rule = (bot_id: string, over: Partial<BotRule> = {}): BotRule => ({
  bot_id,
  events: ["pull_request"],
  commands: {},
  author_allowlist: [],
  author_denylist: [],
  author_scope: "shared",
  label_filter: [],
  launch_vars: {},
  ...over,
});

function opened(config: Partial<WebhookConfig>, author = "Codertocat", labels?: string[]) {
  const payload = githubExample(examples, "pull_request", labels ? "reopened" : "opened");
  const pr = payload.pull_request as Record<string, unknown>;
  (pr.user as Record<string, unknown>).login = author;
  if (labels) pr.labels = labels.map((name) => ({ name }));
  return decideDelivery(webhookConfig(config), forgeEvent("forge_b", "pull_request", payload), deliveryContext());
}
const bots = (d: ReturnType<typeof opened>) => (d.kind === "launch" ? d.launches.map((l) => l.botId) : d);

describe("legacy routing (bot_rules null)", () => {
  it.each([
    [{ bot_ids: ["review-pr", "converse"], default_bot_id: "converse" }, ["converse"]],
    [{ bot_ids: ["security-review"] }, ["security-review"]],
    [{ bot_ids: ["review-pr", "converse"] }, ["review-pr"]],
    [{ bot_ids: ["*"], wildcard_bots: true }, ["review-pr"]],
  ])("%j launches %j under the original key", (config, want) => {
    const d = opened(config);
    expect(bots(d)).toEqual(want);
    expect(d).toMatchObject({ launches: [{ idempotencyKey: BASE_KEY }] });
  });

  it.each([
    [{ bot_ids: ["converse", "security-review"] }],
    [{ bot_ids: [] }],
    [{ bot_ids: ["*"], wildcard_bots: false }],
    [{ bot_ids: ["converse", "security-review"], default_bot_id: "review-pr" }],
  ])("%j: review-pr outside the scope is not permitted", (config) => {
    expect(opened(config)).toEqual({ kind: "invalid", code: "bot_not_permitted", reason: "bot not permitted: review-pr (add it to the webhook's bot_ids)" });
  });

  it("never treats a literal * as a bot id", () => {
    expect(botPermitted(webhookConfig({ bot_ids: ["*"], wildcard_bots: true }), "*")).toBe(false);
  });
});

describe("bot_rules fan-out", () => {
  const fan = (rules: BotRule[], over: Partial<WebhookConfig> = {}) => ({ bot_ids: ["review-pr", "security-review", "converse"], bot_rules: rules, ...over });

  it("gives each claiming bot its own key and a fresh variable map", () => {
    const d = opened(
      fan([rule("review-pr", { launch_vars: { depth: "quick" } }), rule("security-review", { launch_vars: { depth: "deep" } })], {
        launch_vars: { team: "a" },
      }),
    );
    expect(d).toMatchObject({
      kind: "launch",
      launches: [
        { botId: "review-pr", idempotencyKey: `${BASE_KEY}|bot:review-pr`, vars: { depth: "quick", team: "a", pr_review_mode: "inline" } },
        { botId: "security-review", idempotencyKey: `${BASE_KEY}|bot:security-review`, vars: { depth: "deep", team: "a" } },
      ],
    });
    if (d.kind === "launch") expect(d.launches[0]?.vars).not.toBe(d.launches[1]?.vars);
  });

  it("a rule claims only its normalised event kinds", () => {
    expect(bots(opened(fan([rule("review-pr"), rule("converse", { events: ["pull_request_comment"] })])))).toEqual(["review-pr"]);
    expect(bots(opened(fan([rule("review-pr", { events: ["*"] })])))).toEqual(["review-pr"]);
  });

  it("a delivery no enabled bot claims is filtered with 200", () => {
    expect(opened(fan([rule("converse", { events: ["pull_request_comment"] })]))).toEqual({ kind: "filtered", reason: "no bot claims this event" });
    // A rule for a bot outside bot_ids is not enabled.
    expect(opened(fan([rule("improve-branch")]))).toEqual({ kind: "filtered", reason: "no bot claims this event" });
  });

  it.each([
    [["codertocat"], "Codertocat", true],
    [["*-bot"], "deploy-bot", true],
    [["*-bot"], "-bot", false],
    [["*-bot"], "robot", false],
    [["alice"], "Codertocat", false],
  ])("author_allowlist %j with author %s claims: %s", (allow, author, claims) => {
    const d = opened(fan([rule("security-review", { author_allowlist: allow })]), author);
    expect(d.kind === "launch").toBe(claims);
  });

  it("author_denylist excludes, case-insensitively and by suffix", () => {
    expect(opened(fan([rule("review-pr", { author_denylist: ["CODERTOCAT"] })])).kind).toBe("filtered");
    expect(opened(fan([rule("review-pr", { author_denylist: ["*[bot]"] })]), "renovate[bot]").kind).toBe("filtered");
  });

  it("exclusive author scope adds the allowlist to every other bot's denylist", () => {
    const rules = (scope: "shared" | "exclusive") => [rule("security-review", { author_allowlist: ["*[bot]"], author_scope: scope }), rule("review-pr")];
    expect(bots(opened(fan(rules("exclusive")), "renovate[bot]"))).toEqual(["security-review"]);
    expect(bots(opened(fan(rules("shared")), "renovate[bot]"))).toEqual(["security-review", "review-pr"]);
    expect(bots(opened(fan(rules("exclusive")), "Codertocat"))).toEqual(["review-pr"]);
  });

  it("the per-bot label filter needs one of its labels", () => {
    const rules = [rule("security-review", { label_filter: ["Security"] }), rule("review-pr")];
    expect(bots(opened(fan(rules), "Codertocat", ["security"]))).toEqual(["security-review", "review-pr"]);
    expect(bots(opened(fan(rules), "Codertocat", ["docs"]))).toEqual(["review-pr"]);
  });
});
