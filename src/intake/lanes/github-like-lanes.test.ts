import { describe, expect, it } from "vitest";
import type { WebhookConfig } from "../../webhooks/webhook-config.js";
import { decideDelivery } from "./decide-delivery.js";
import type { DeliveryContext } from "../pipeline/delivery-context.js";
import { deliveryContext, fixture, forgeEvent, githubExample, loadGithubExamples, webhookConfig } from "../fixtures/fixtures.js";

const examples = loadGithubExamples();
const SHA = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";

type Mutate = (payload: Record<string, unknown>) => void;
const pr = (p: Record<string, unknown>) => p.pull_request as Record<string, unknown>;

function decideB(event: string, action: string | undefined, config: Partial<WebhookConfig> = {}, mutate?: Mutate, ctx: Partial<DeliveryContext> = {}) {
  const payload = githubExample(examples, event, action);
  mutate?.(payload);
  return decideDelivery(webhookConfig(config), forgeEvent("forge_b", event, payload), deliveryContext(ctx));
}

function decideC(name: string, config: Partial<WebhookConfig> = {}, mutate?: Mutate, ctx: Partial<DeliveryContext> = {}) {
  const payload = fixture(name);
  mutate?.(payload);
  return decideDelivery(webhookConfig({ provider: "forge_c", ...config }), forgeEvent("forge_c", "pull_request", payload), deliveryContext(ctx));
}

const reviewLaunch = {
  kind: "launch",
  launches: [
    {
      botId: "review-pr",
      idempotencyKey: `gh|team_1|wh_cfg1|Codertocat/Hello-World|2|${SHA}`,
      subjectId: "gh:Codertocat/Hello-World#2",
      subjectSha: SHA,
      projectPath: "Codertocat/Hello-World",
      repoUrl: "https://github.com/Codertocat/Hello-World.git",
      repoRef: "changes",
      vars: {
        pr_url: "https://github.com/Codertocat/Hello-World/pull/2",
        base_ref: "master",
        scope_notes: 'PR #2 "Update the README with new information.": changes into master',
        post_to_board: "false",
        pr_review_mode: "inline",
      },
    },
  ],
};

describe("forge_b pull_request table", () => {
  it.each(["opened", "reopened", "ready_for_review"])("%s launches the review bot", (action) => {
    expect(decideB("pull_request", action)).toEqual(reviewLaunch);
  });

  it("closed stops runs bound to the PR and launches nothing", () => {
    expect(decideB("pull_request", "closed")).toEqual({ kind: "stop", subjectId: "gh:Codertocat/Hello-World#2" });
  });

  it("synchronize is filtered unless review_on_sync", () => {
    expect(decideB("pull_request", "synchronize")).toEqual({ kind: "filtered", reason: "synchronize: review_on_sync is off" });
  });

  it("synchronize with review_on_sync launches at once when the debounce is 0", () => {
    expect(decideB("pull_request", "synchronize", { review_on_sync: true })).toEqual(reviewLaunch);
  });

  it("synchronize with a debounce is deferred with the forge's event time", () => {
    expect(decideB("pull_request", "synchronize", { review_on_sync: true }, undefined, { syncDebounceMs: 180_000 })).toEqual({
      kind: "defer",
      launches: reviewLaunch.launches,
      eventAt: "2019-05-15T15:20:33Z",
    });
  });

  it("opened is never deferred, whatever the debounce", () => {
    expect(decideB("pull_request", "opened", { review_on_sync: true }, undefined, { syncDebounceMs: 180_000 }).kind).toBe("launch");
  });

  it.each([
    ["labeled", "pull_request labeled does not trigger"],
    ["converted_to_draft", "pull_request converted_to_draft does not trigger"],
    ["assigned", "pull_request assigned does not trigger"],
  ])("%s is filtered", (action, reason) => {
    expect(decideB("pull_request", action)).toEqual({ kind: "filtered", reason });
  });

  it("review_requested from someone else than the bot is filtered", () => {
    expect(decideB("pull_request", "review_requested")).toMatchObject({ kind: "filtered", reason: expect.stringMatching(/not the bot$/) });
  });

  it("dequeued without a healable reason is filtered", () => {
    expect(decideB("pull_request", "opened", {}, (p) => (p.action = "dequeued"))).toEqual({
      kind: "filtered",
      reason: "dequeued for no stated reason: not healable",
    });
  });

  it.each(["opened", "reopened", "ready_for_review", "synchronize"])("a draft never auto-launches (%s)", (action) => {
    const d = decideB("pull_request", action, { review_on_sync: true }, (p) => (pr(p).draft = true));
    expect(d).toEqual({ kind: "filtered", reason: "draft: drafts never auto-launch" });
  });

  it("a proven fork is filtered with a reason naming it", () => {
    const d = decideB("pull_request", "opened", {}, (p) => {
      const head = pr(p).head as { repo: { id: number; full_name: string } };
      head.repo = { ...head.repo, id: 4242, full_name: "alice/Hello-World" };
    });
    expect(d).toEqual({ kind: "filtered", reason: "fork: alice/Hello-World → Codertocat/Hello-World" });
  });

  it("a head repo the payload does not name fails closed", () => {
    const d = decideB("pull_request", "opened", {}, (p) => ((pr(p).head as Record<string, unknown>).repo = null));
    expect(d).toEqual({ kind: "filtered", reason: "fork check: head repo not named" });
  });

  it("a PR opened by the service's own forge bot is skipped with a reason", () => {
    const d = decideB("pull_request", "opened", {}, (p) => ((pr(p).user as Record<string, unknown>).login = "acme-review[bot]"));
    expect(d).toEqual({ kind: "filtered", reason: "opened by the service's own forge bot: acme-review[bot]" });
  });

  it("review_request_logins join the bot set (leading @, any case)", () => {
    expect(decideB("pull_request", "opened", { review_request_logins: ["@CODERTOCAT"] })).toMatchObject({ kind: "filtered" });
  });

  it("another app's [bot] login is not the service's bot", () => {
    const d = decideB("pull_request", "opened", {}, (p) => ((pr(p).user as Record<string, unknown>).login = "dependabot[bot]"));
    expect(d.kind).toBe("launch");
  });

  it.each([
    [[], "launch"],
    [["*"], "launch"],
    [["codertocat"], "launch"],
    [["dependabot[bot]", "Codertocat"], "launch"],
    [["alice"], "filtered"],
  ])("author_allowlist %j → %s", (list, kind) => {
    expect(decideB("pull_request", "opened", { author_allowlist: list }).kind).toBe(kind);
  });

  it.each([
    [[], "launch"],
    [["*"], "launch"],
    [["Codertocat/Hello-World"], "launch"],
    [["codertocat/*"], "launch"],
    [["Codertocat/Other"], "filtered"],
    [["octo/*"], "filtered"],
  ])("project_allowlist %j → %s", (list, kind) => {
    expect(decideB("pull_request", "opened", { project_allowlist: list }).kind).toBe(kind);
  });

  it("hold_labels hold a labelled PR, case-insensitively", () => {
    // The reopened example carries the label "bug".
    expect(decideB("pull_request", "reopened", { hold_labels: ["BUG"] })).toEqual({ kind: "filtered", reason: "held by label: bug" });
    expect(decideB("pull_request", "opened", { hold_labels: ["BUG"] }).kind).toBe("launch");
  });

  it("hold_labels * holds everything; a payload without labels fails open", () => {
    expect(decideB("pull_request", "opened", { hold_labels: ["*"] })).toMatchObject({ kind: "filtered" });
    expect(decideB("pull_request", "reopened", { hold_labels: ["bug"] }, (p) => delete pr(p).labels).kind).toBe("launch");
  });

  it("ping, push and unlisted events are filtered with 200", () => {
    expect(decideB("ping", undefined)).toEqual({ kind: "filtered", reason: "ping: nothing to launch" });
    expect(decideB("push", undefined)).toEqual({ kind: "filtered", reason: "push events do not launch" });
    expect(decideB("star", "created", { event_allowlist: ["*"] })).toEqual({ kind: "filtered", reason: "unhandled event: star" });
  });

  it("the default allowlist is pull_request and issues", () => {
    expect(decideB("issue_comment", "created")).toEqual({ kind: "filtered", reason: "event not in event_allowlist: issue_comment" });
    expect(decideB("pull_request", "opened", { event_allowlist: ["issues"] })).toMatchObject({ kind: "filtered" });
  });

  it("an edited comment is not a new command", () => {
    expect(decideB("issue_comment", "edited", { event_allowlist: ["*"] })).toEqual({ kind: "filtered", reason: "issue_comment edited does not trigger" });
  });

  it("a comment that is not a command, and a review comment without the converse bot, are filtered", () => {
    expect(decideB("issue_comment", "created", { event_allowlist: ["*"] })).toEqual({
      kind: "filtered",
      reason: "comment is not a command (its first line does not start with /)",
    });
    expect(decideB("pull_request_review_comment", "created", { event_allowlist: ["pull_request_review_comment"] })).toEqual({
      kind: "filtered",
      reason: "thread reply: the converse bot is not in bot_ids",
    });
  });

  it("rejects a PR payload without a head sha as bad payload", () => {
    expect(decideB("pull_request", "opened", {}, (p) => delete (pr(p).head as Record<string, unknown>).sha)).toMatchObject({
      kind: "invalid",
      code: "bad_payload",
    });
  });
});

describe("forge_c pull_request table", () => {
  const fj = "fj|team_1|wh_cfg1|acme/widgets|3|";

  it("opened launches under the fj| key", () => {
    expect(decideC("forgejo-pull-request-opened")).toMatchObject({
      kind: "launch",
      launches: [{ botId: "review-pr", idempotencyKey: `${fj}5f0b2f0c3a1d6a4f2b8e9c7d1e0f3a2b4c6d8e0f`, subjectId: "fj:acme/widgets#3" }],
    });
  });

  it("reopened launches", () => {
    expect(decideC("forgejo-pull-request-opened", {}, (p) => (p.action = "reopened")).kind).toBe("launch");
  });

  it("synchronized launches a new key only with review_on_sync", () => {
    expect(decideC("forgejo-pull-request-synchronized")).toMatchObject({ kind: "filtered" });
    expect(decideC("forgejo-pull-request-synchronized", { review_on_sync: true })).toMatchObject({
      kind: "launch",
      launches: [{ idempotencyKey: `${fj}7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e` }],
    });
  });

  it("edited never triggers, even when it marks the PR ready", () => {
    expect(decideC("forgejo-pull-request-edited")).toEqual({
      kind: "filtered",
      reason: "pull_request edited does not trigger a review (re-trigger by reopening or by command)",
    });
  });

  it("has no ready_for_review action", () => {
    expect(decideC("forgejo-pull-request-opened", {}, (p) => (p.action = "ready_for_review"))).toMatchObject({ kind: "filtered" });
  });

  it("closed stops the PR's runs", () => {
    expect(decideC("forgejo-pull-request-closed")).toEqual({ kind: "stop", subjectId: "fj:acme/widgets#3" });
  });

  it("drafts (flag or WIP: title) and forks never auto-launch", () => {
    expect(decideC("forgejo-pull-request-opened", {}, (p) => (pr(p).draft = true))).toMatchObject({ kind: "filtered" });
    expect(decideC("forgejo-pull-request-opened", {}, (p) => (pr(p).title = "[WIP] limiter"))).toMatchObject({ kind: "filtered" });
    const fork = decideC("forgejo-pull-request-opened", {}, (p) => {
      const head = pr(p).head as Record<string, unknown>;
      head.repo_id = 9;
      head.repo = { ...(head.repo as object), id: 9, full_name: "alice/widgets" };
    });
    expect(fork).toEqual({ kind: "filtered", reason: "fork: alice/widgets → acme/widgets" });
  });
});

describe("review lane rule 1: opening a pull request is review-only", () => {
  it("never launches the branch-improvement bot, even as the default bot", () => {
    expect(decideB("pull_request", "opened", { bot_ids: ["improve"], default_bot_id: "improve" })).toEqual({
      kind: "filtered",
      reason: "the pull request review lane never launches the branch-improvement bot",
    });
  });

  it("drops it from a fan-out and launches the review bot alone", () => {
    const rule = (bot_id: string) => ({
      bot_id,
      events: ["pull_request"],
      commands: {},
      author_allowlist: [],
      author_denylist: [],
      author_scope: "shared" as const,
      label_filter: [],
      launch_vars: {},
    });
    const d = decideB("pull_request", "opened", { bot_ids: ["review-pr", "improve"], bot_rules: [rule("review-pr"), rule("improve")] });
    expect(d.kind === "launch" && d.launches.map((l) => l.botId)).toEqual(["review-pr"]);
  });
});
