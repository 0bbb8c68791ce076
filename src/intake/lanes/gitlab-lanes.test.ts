import { describe, expect, it } from "vitest";
import type { WebhookConfig } from "../../webhooks/webhook-config.js";
import { decideDelivery } from "./decide-delivery.js";
import { deliveryContext, fixture, forgeEvent, webhookConfig } from "../fixtures/fixtures.js";

const SHA = "da1560886d4f094c3e6c9ef40349f7d38b5d27d7";
const KEY = `mr|team_1|wh_cfg1|14|7|${SHA}`;
type Mutate = (payload: Record<string, unknown>) => void;
const attrs = (p: Record<string, unknown>) => p.object_attributes as Record<string, unknown>;

function decideA(name: string, eventName: string, config: Partial<WebhookConfig> = {}, mutate?: Mutate) {
  const payload = fixture(name);
  mutate?.(payload);
  return decideDelivery(
    webhookConfig({ provider: "forge_a", sign_mode: "token", ...config }),
    forgeEvent("forge_a", eventName, payload),
    deliveryContext({ botLogins: ["acme-bot"] }),
  );
}
const mr = (name: string, config: Partial<WebhookConfig> = {}, mutate?: Mutate) => decideA(name, "Merge Request Hook", config, mutate);

describe("forge_a Merge Request Hook table", () => {
  it("open launches the review bot under the mr| key with the stamped variables", () => {
    expect(mr("gitlab-merge-request-open")).toEqual({
      kind: "launch",
      launches: [
        {
          botId: "review-pr",
          idempotencyKey: KEY,
          subjectId: "gl:acme/platform/gitlab-test!7",
          subjectSha: SHA,
          projectPath: "acme/platform/gitlab-test",
          repoUrl: "http://example.com/acme/platform/gitlab-test.git",
          repoRef: "ms-viewport",
          vars: {
            pr_url: "http://example.com/acme/platform/gitlab-test/-/merge_requests/7",
            base_ref: "main",
            scope_notes: 'MR !7 "Add viewport meta tag": ms-viewport into main',
            post_to_board: "false",
            pr_review_mode: "inline",
          },
        },
      ],
    });
  });

  it("reopen launches", () => {
    expect(mr("gitlab-merge-request-reopen")).toMatchObject({ kind: "launch", launches: [{ idempotencyKey: KEY }] });
  });

  it("an update flipping draft true → false launches", () => {
    expect(mr("gitlab-merge-request-update-draft-to-ready")).toMatchObject({ kind: "launch", launches: [{ idempotencyKey: KEY }] });
  });

  it("the deprecated changes.work_in_progress flip launches too", () => {
    const d = mr("gitlab-merge-request-update-draft-to-ready", {}, (p) => (p.changes = { work_in_progress: { previous: true, current: false } }));
    expect(d.kind).toBe("launch");
  });

  it("an update with an unchanged draft flag does not re-trigger", () => {
    expect(mr("gitlab-merge-request-update-unchanged")).toEqual({
      kind: "filtered",
      reason: "merge_request update without draft→ready does not re-trigger",
    });
    // ready → draft is not a trigger either.
    const back = mr("gitlab-merge-request-update-unchanged", {}, (p) => (p.changes = { draft: { previous: false, current: true } }));
    expect(back.kind).toBe("filtered");
  });

  it.each([
    ["a re-request", { previous: [{ username: "acme-bot" }], current: [{ username: "acme-bot", re_requested: true }] }],
    ["a newly added bot", { previous: [], current: [{ username: "acme-bot" }] }],
  ])("%s of the bot account is the review-request lane", (_name, reviewers) => {
    expect(mr("gitlab-merge-request-update-unchanged", {}, (p) => (p.changes = { reviewers }))).toMatchObject({
      kind: "forge",
      check: { lane: "review_request", provePull: true },
    });
  });

  it("a reviewer change not involving the bot is a plain update", () => {
    const d = mr("gitlab-merge-request-update-unchanged", {}, (p) => (p.changes = { reviewers: { previous: [], current: [{ username: "bob" }] } }));
    expect(d).toMatchObject({ kind: "filtered", reason: "merge_request update without draft→ready does not re-trigger" });
  });

  it.each(["close", "merge", "approved"])("%s does not trigger", (action) => {
    expect(mr("gitlab-merge-request-open", {}, (p) => (attrs(p).action = action))).toEqual({
      kind: "filtered",
      reason: `merge_request ${action} does not trigger`,
    });
  });

  it("a draft MR never auto-launches: flag or an older version's title prefix", () => {
    expect(mr("gitlab-merge-request-open", {}, (p) => (attrs(p).draft = true))).toEqual({ kind: "filtered", reason: "draft: drafts never auto-launch" });
    expect(mr("gitlab-merge-request-reopen", {}, (p) => (attrs(p).title = "WIP: viewport")).kind).toBe("filtered");
  });

  it("a fork MR is filtered on every action, naming the fork", () => {
    expect(mr("gitlab-merge-request-fork")).toEqual({ kind: "filtered", reason: "fork: mallory/gitlab-test → acme/platform/gitlab-test" });
    expect(mr("gitlab-merge-request-fork", {}, (p) => (attrs(p).action = "reopen")).kind).toBe("filtered");
  });

  it("a fork proven by project ids alone is filtered", () => {
    const d = mr("gitlab-merge-request-open", {}, (p) => {
      attrs(p).source_project_id = 88;
      delete attrs(p).source;
    });
    expect(d).toEqual({ kind: "filtered", reason: "fork: project 88 → acme/platform/gitlab-test" });
  });

  it("a payload naming neither project passes the fork stage", () => {
    const d = mr("gitlab-merge-request-open", {}, (p) => {
      for (const k of ["source_project_id", "target_project_id", "source", "target"]) delete attrs(p)[k];
    });
    expect(d.kind).toBe("launch");
  });

  it("an MR opened by the connected bot account is skipped", () => {
    const d = mr("gitlab-merge-request-open", {}, (p) => ((p.user as Record<string, unknown>).username = "acme-bot"));
    expect(d).toEqual({ kind: "filtered", reason: "opened by the service's own forge bot: acme-bot" });
  });

  it("an author_allowlist fails closed when the hook does not name the author", () => {
    expect(mr("gitlab-merge-request-open", { author_allowlist: ["Alice"] }).kind).toBe("launch");
    expect(mr("gitlab-merge-request-reopen", { author_allowlist: ["alice"] })).toEqual({
      kind: "filtered",
      reason: "author not named in the payload",
    });
  });

  it("project_allowlist matches nested groups under owner/*", () => {
    expect(mr("gitlab-merge-request-open", { project_allowlist: ["acme/*"] }).kind).toBe("launch");
    expect(mr("gitlab-merge-request-open", { project_allowlist: ["acme/platform/gitlab-test"] }).kind).toBe("launch");
    expect(mr("gitlab-merge-request-open", { project_allowlist: ["other/*"] }).kind).toBe("filtered");
  });

  it("hold_labels read the MR's labels", () => {
    const d = mr("gitlab-merge-request-open", { hold_labels: ["do-not-review"] }, (p) => (p.labels = [{ id: 1, title: "Do-Not-Review" }]));
    expect(d).toEqual({ kind: "filtered", reason: "held by label: Do-Not-Review" });
  });
});

describe("forge_a event selection", () => {
  it("defaults to merge_request and note: an Issue Hook is filtered", () => {
    expect(decideA("gitlab-issue-label-added", "Issue Hook")).toEqual({ kind: "filtered", reason: "event not in event_allowlist: Issue Hook" });
  });

  it("listing only merge_request disables the command path but keeps open", () => {
    expect(decideA("gitlab-note-merge-request", "Note Hook", { event_allowlist: ["merge_request"] })).toMatchObject({ kind: "filtered" });
    expect(mr("gitlab-merge-request-open", { event_allowlist: ["merge_request"] }).kind).toBe("launch");
  });

  it("accepts the vendor header value as an allowlist entry", () => {
    expect(mr("gitlab-merge-request-open", { event_allowlist: ["Merge Request Hook"] }).kind).toBe("launch");
  });

  it("push hooks are filtered", () => {
    expect(decideA("gitlab-merge-request-open", "Push Hook")).toEqual({ kind: "filtered", reason: "push events do not launch" });
  });
});

describe("forge_a Note Hook", () => {
  it("a command note asks the forge to gate the replier and prove the merge request", () => {
    expect(decideA("gitlab-note-merge-request", "Note Hook")).toMatchObject({ kind: "forge", check: { lane: "command", provePull: true } });
  });

  it("an updated note is not a new command", () => {
    expect(decideA("gitlab-note-merge-request", "Note Hook", {}, (p) => (attrs(p).action = "update"))).toEqual({
      kind: "filtered",
      reason: "note update does not trigger",
    });
    expect(decideA("gitlab-note-merge-request", "Note Hook", {}, (p) => (attrs(p).action = "create")).kind).toBe("forge");
  });

  it("a plain note is a thread reply, which needs the converse bot", () => {
    const d = decideA("gitlab-note-merge-request", "Note Hook", {}, (p) => (attrs(p).note = "Looks good, but see /docs"));
    expect(d).toEqual({ kind: "filtered", reason: "thread reply: the converse bot is not in bot_ids" });
    const converse = decideA("gitlab-note-merge-request", "Note Hook", { bot_ids: ["review-pr", "converse"] }, (p) => (attrs(p).note = "Why?"));
    expect(converse).toMatchObject({ kind: "forge", check: { lane: "thread_reply", thread: { rule: "took_part" } } });
  });
});
