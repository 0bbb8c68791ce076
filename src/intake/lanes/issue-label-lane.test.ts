import { describe, expect, it } from "vitest";
import type { WebhookConfig } from "../../webhooks/webhook-config.js";
import { decideDelivery } from "./decide-delivery.js";
import type { DeliveryDecision } from "../pipeline/delivery-decision.js";
import { deliveryContext, fixture, forgeEvent, githubExample, loadGithubExamples, webhookConfig } from "../fixtures/fixtures.js";

const examples = loadGithubExamples();
type Mutate = (payload: Record<string, unknown>) => void;
const issue = (p: Record<string, unknown>) => p.issue as Record<string, unknown>;

function labeled(config: Partial<WebhookConfig> = {}, mutate?: Mutate, action = "labeled") {
  const payload = githubExample(examples, "issues", action);
  mutate?.(payload);
  return decideDelivery(webhookConfig({ bot_ids: ["implement-issue"], ...config }), forgeEvent("forge_b", "issues", payload), deliveryContext());
}

function keyOf(d: DeliveryDecision): string | undefined {
  return d.kind === "launch" ? d.launches[0]?.idempotencyKey : undefined;
}

describe("forge_b issues labeled", () => {
  it("launches the webhook's bot with feature_prompt, open_mr and source_issue_ref", () => {
    const payload = githubExample(examples, "issues", "labeled");
    const i = issue(payload);
    expect(labeled()).toEqual({
      kind: "launch",
      launches: [
        {
          botId: "implement-issue",
          idempotencyKey: "issue|team_1|wh_cfg1|Codertocat/Hello-World|1|label:bug",
          subjectId: "gh:Codertocat/Hello-World#1",
          projectPath: "Codertocat/Hello-World",
          repoUrl: "https://github.com/Codertocat/Hello-World.git",
          repoRef: "master",
          vars: {
            feature_prompt: `${String(i.title)}\n\n${String(i.body)}`,
            open_mr: "true",
            source_issue_ref: "https://github.com/Codertocat/Hello-World/issues/1",
          },
          card: { title: String(i.title), body: String(i.body), issueRef: "https://github.com/Codertocat/Hello-World/issues/1" },
        },
      ],
    });
  });

  it("re-applying the same label is an idempotent replay: the key does not change", () => {
    const first = keyOf(labeled());
    const again = keyOf(
      labeled({}, (p) => {
        issue(p).updated_at = "2020-01-01T00:00:00Z";
        (p.sender as Record<string, unknown>).login = "someone-else";
      }),
    );
    expect(again).toBe(first);
    const other = keyOf(labeled({}, (p) => ((p.label as Record<string, unknown>).name = "enhancement")));
    expect(other).toBe("issue|team_1|wh_cfg1|Codertocat/Hello-World|1|label:enhancement");
  });

  it.each([
    [[], "launch"],
    [["*"], "launch"],
    [["BUG"], "launch"],
    [["enhancement"], "filtered"],
  ])("label_allowlist %j → %s", (list, kind) => {
    expect(labeled({ label_allowlist: list }).kind).toBe(kind);
  });

  it("hold_labels on the issue hold it", () => {
    expect(labeled({ hold_labels: ["bug"] })).toEqual({ kind: "filtered", reason: "held by label: bug" });
  });

  it("is not author-gated", () => {
    expect(labeled({ author_allowlist: ["somebody"] }).kind).toBe("launch");
  });

  it("project_allowlist still applies", () => {
    expect(labeled({ project_allowlist: ["other/*"] })).toMatchObject({ kind: "filtered" });
  });

  it("a closed issue does not launch", () => {
    expect(labeled({}, (p) => (issue(p).state = "closed"))).toEqual({ kind: "filtered", reason: "issue is not open" });
  });

  it("falls back to review-pr like every forge lane when nothing else decides", () => {
    expect(labeled({ bot_ids: ["review-pr", "converse"] })).toMatchObject({ kind: "launch", launches: [{ botId: "review-pr" }] });
    expect(labeled({ bot_ids: ["implement-issue", "converse"] })).toMatchObject({ kind: "invalid", code: "bot_not_permitted" });
    expect(labeled({ bot_ids: ["implement-issue", "converse"], default_bot_id: "implement-issue" }).kind).toBe("launch");
  });

  it("issues opened is the trusted-author lane, off unless auto_implement_on_open", () => {
    expect(labeled({}, undefined, "opened")).toEqual({ kind: "filtered", reason: "issues opened: auto_implement_on_open is off" });
    expect(labeled({ auto_implement_on_open: true }, undefined, "opened").kind).not.toBe("filtered");
  });

  it("other issue actions are filtered", () => {
    expect(labeled({}, undefined, "unlabeled")).toEqual({ kind: "filtered", reason: "issues unlabeled does not trigger" });
  });
});

describe("forge_c issues", () => {
  it("Gitea's label_updated names no applied label and does not launch", () => {
    const payload = { action: "label_updated", issue: { number: 4, state: "open", labels: [{ name: "bot" }] }, repository: { full_name: "acme/widgets" } };
    const d = decideDelivery(webhookConfig({ provider: "forge_c" }), forgeEvent("forge_c", "issues", payload), deliveryContext());
    expect(d).toEqual({ kind: "filtered", reason: "issues label_updated does not trigger" });
  });
});

describe("forge_a Issue Hook", () => {
  const cfg = { provider: "forge_a" as const, sign_mode: "token" as const, event_allowlist: ["merge_request", "note", "issues"], bot_ids: ["implement-issue"] };
  function hook(config: Partial<WebhookConfig> = {}, mutate?: Mutate) {
    const payload = fixture("gitlab-issue-label-added");
    mutate?.(payload);
    return decideDelivery(webhookConfig({ ...cfg, ...config }), forgeEvent("forge_a", "Issue Hook", payload), deliveryContext());
  }

  it("a freshly added label that passes label_allowlist on an open issue launches", () => {
    expect(hook({ label_allowlist: ["bot: implement"] })).toEqual({
      kind: "launch",
      launches: [
        {
          botId: "implement-issue",
          idempotencyKey: "issue|team_1|wh_cfg1|14|23|label:bot: implement",
          subjectId: "gl:acme/platform/gitlab-test#23",
          projectPath: "acme/platform/gitlab-test",
          repoUrl: "http://example.com/acme/platform/gitlab-test.git",
          repoRef: "main",
          vars: {
            feature_prompt: "New API: create/update/delete file\n\nCreate new API for manipulations with repository",
            open_mr: "true",
            source_issue_ref: "http://example.com/acme/platform/gitlab-test/-/issues/23",
          },
          card: {
            title: "New API: create/update/delete file",
            body: "Create new API for manipulations with repository",
            issueRef: "http://example.com/acme/platform/gitlab-test/-/issues/23",
          },
        },
      ],
    });
  });

  it("a label present before and after is not freshly added", () => {
    expect(hook({ label_allowlist: ["api"] })).toEqual({ kind: "filtered", reason: "label not in label_allowlist: Bot: Implement" });
  });

  it("an update without a labels diff is filtered", () => {
    expect(hook({}, (p) => (p.changes = {}))).toEqual({ kind: "filtered", reason: "issue event added no label" });
  });

  it("a closed issue does not launch", () => {
    expect(hook({}, (p) => ((p.object_attributes as Record<string, unknown>).state = "closed"))).toEqual({
      kind: "filtered",
      reason: "issue is not open",
    });
  });

  it("the vendor spelling Issue Hook is accepted in the allowlist", () => {
    expect(hook({ event_allowlist: ["Issue Hook"] }).kind).toBe("launch");
  });
});
