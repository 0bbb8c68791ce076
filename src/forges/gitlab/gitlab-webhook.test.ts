import { describe, expect, it } from "vitest";
import { fixture, fixtureBytes, forgeEvent } from "../../intake/fixtures/fixtures.js";
import { gitlabWebhook } from "./gitlab-webhook.js";

const TOKEN = "wh_gitlab_token";
const token = { mode: "token" as const, verifyToken: (t: string) => t === TOKEN };
const rawBody = fixtureBytes("gitlab-merge-request-open");

describe("forge_a (GitLab) token check", () => {
  it.each(["X-Gitlab-Token", "X-Forge-A-Token", "X-Service-Webhook-Token"])("accepts the token in %s", (name) => {
    expect(gitlabWebhook.verify({ headers: { [name]: TOKEN }, rawBody, auth: token }).ok).toBe(true);
  });

  it("checks the first token header present: a bad X-Gitlab-Token is not rescued", () => {
    const headers = { "x-gitlab-token": "wh_wrong", "x-forge-a-token": TOKEN };
    expect(gitlabWebhook.verify({ headers, rawBody, auth: token })).toMatchObject({ ok: false, code: "bad_signature" });
  });

  it("rejects a missing token and hmac mode", () => {
    expect(gitlabWebhook.verify({ headers: {}, rawBody, auth: token })).toMatchObject({ ok: false, reason: "missing token" });
    expect(gitlabWebhook.verify({ headers: { "x-gitlab-token": TOKEN }, rawBody, auth: { mode: "hmac", secret: TOKEN } }).ok).toBe(false);
  });
});

describe("forge_a (GitLab) parse", () => {
  it("normalises a Merge Request Hook open", () => {
    expect(forgeEvent("forge_a", "Merge Request Hook", fixture("gitlab-merge-request-open"))).toMatchObject({
      provider: "forge_a",
      kind: "merge_request",
      action: "open",
      projectPath: "acme/platform/gitlab-test",
      projectId: "14",
      repoUrl: "http://example.com/acme/platform/gitlab-test.git",
      number: 7,
      headSha: "da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
      baseRef: "main",
      headRef: "ms-viewport",
      url: "http://example.com/acme/platform/gitlab-test/-/merge_requests/7",
      title: "Add viewport meta tag",
      authorLogin: "alice",
      actorLogin: "alice",
      labels: [],
      draft: false,
      fork: { state: "same" },
      state: "open",
      eventAt: "2024-03-04 10:15:03 UTC",
    });
  });

  it("names the author only when the actor is the author (MR hooks carry author_id)", () => {
    const e = forgeEvent("forge_a", "Merge Request Hook", fixture("gitlab-merge-request-reopen"));
    expect(e.authorLogin).toBeUndefined();
    expect(e.actorLogin).toBe("bob");
  });

  it("reads changes.draft, and the deprecated work_in_progress", () => {
    const ready = forgeEvent("forge_a", "Merge Request Hook", fixture("gitlab-merge-request-update-draft-to-ready"));
    expect(ready.changes.draft).toEqual({ previous: true, current: false });
    const legacy = fixture("gitlab-merge-request-update-draft-to-ready");
    legacy.changes = { work_in_progress: { previous: true, current: false } };
    expect(forgeEvent("forge_a", "Merge Request Hook", legacy).changes.draft).toEqual({ previous: true, current: false });
  });

  it("proves a fork by project id or path", () => {
    expect(forgeEvent("forge_a", "Merge Request Hook", fixture("gitlab-merge-request-fork")).fork).toEqual({
      state: "fork",
      head: "mallory/gitlab-test",
      base: "acme/platform/gitlab-test",
    });
    const neither = fixture("gitlab-merge-request-open");
    const attrs = neither.object_attributes as Record<string, unknown>;
    for (const k of ["source_project_id", "target_project_id", "source", "target"]) delete attrs[k];
    expect(forgeEvent("forge_a", "Merge Request Hook", neither).fork).toEqual({ state: "unknown" });
  });

  it.each(["Draft: x", "draft: x", "WIP: x", "[Draft] x", "(Draft) x", "[WIP] x"])("treats the title %j as a draft", (title) => {
    const payload = fixture("gitlab-merge-request-open");
    (payload.object_attributes as Record<string, unknown>).title = title;
    expect(forgeEvent("forge_a", "Merge Request Hook", payload).draft).toBe(true);
  });

  it("reads an Issue Hook's freshly added labels from the changes.labels diff", () => {
    expect(forgeEvent("forge_a", "Issue Hook", fixture("gitlab-issue-label-added"))).toMatchObject({
      kind: "issues",
      number: 23,
      state: "open",
      appliedLabels: ["Bot: Implement"],
      labels: ["API", "Bot: Implement"],
      url: "http://example.com/acme/platform/gitlab-test/-/issues/23",
    });
  });

  it("reads a Note Hook on a merge request", () => {
    expect(forgeEvent("forge_a", "Note Hook", fixture("gitlab-note-merge-request"))).toMatchObject({
      kind: "note",
      commentOn: "pull_request",
      commentId: "1244",
      commentBody: "/re-review",
      number: 7,
      headSha: "da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
      state: "open",
    });
  });

  it("falls back to object_kind without an event header, and reads X-Forge-A-Event", () => {
    const v = gitlabWebhook.verify({ headers: { "x-gitlab-token": TOKEN }, rawBody, auth: token });
    expect(v.ok && gitlabWebhook.parse(v.payload, {})).toMatchObject({ ok: true, event: { kind: "merge_request", eventName: "" } });
    expect(v.ok && gitlabWebhook.parse(v.payload, { "x-forge-a-event": "Merge Request Hook" })).toMatchObject({
      ok: true,
      event: { kind: "merge_request", eventName: "Merge Request Hook" },
    });
  });
});
