import { describe, expect, it } from "vitest";
import type { WebhookConfig } from "../../../webhooks/webhook-config.js";
import { deliveryContext, fixture, forgeEvent, webhookConfig } from "../../fixtures/fixtures.js";
import { decideCommand } from "./command-lane.js";

const NOTE_KEY = "team_1|wh_cfg1|14|note:1244";
const MR = "gl:acme/platform/gitlab-test!7";

/** GitLab's Note Hook fixture (a note by bob on MR !7, discussion 6a9c…) with the note's text replaced. */
function decide(note: string, config: Partial<WebhookConfig> = {}, onIssue = false) {
  const payload = fixture("gitlab-note-merge-request") as Record<string, any>;
  payload.object_attributes.note = note;
  if (onIssue) {
    payload.object_attributes.noteable_type = "Issue";
    payload.object_attributes.url = "http://example.com/acme/platform/gitlab-test/-/issues/3#note_1244";
    payload.issue = { iid: 3, title: "Slow", description: "2 s", state: "opened", url: "http://example.com/i/3" };
    delete payload.merge_request;
  }
  const cfg = webhookConfig({ provider: "forge_a", sign_mode: "token", bot_ids: ["review-pr", "converse", "improve"], ...config });
  return decideCommand(cfg, forgeEvent("forge_a", "Note Hook", payload), deliveryContext({ botLogins: ["acme-bot"] }));
}

describe("decideCommand: what the pure step asks of the forge", () => {
  it("a bare /re-review: the review bot bound to the MR, under the note key, gated on bob, the MR to prove", () => {
    expect(decide("/re-review")).toMatchObject({
      kind: "forge",
      check: {
        lane: "command",
        repo: "acme/platform/gitlab-test",
        number: 7,
        gate: { login: "bob", minRole: "developer" },
        provePull: true,
        pending: {
          subjectId: MR,
          bots: [{ botId: "review-pr", idempotencyKey: NOTE_KEY, improve: false, vars: { re_review: "true", trigger_command: "re-review", trigger_args: "" } }],
        },
      },
    });
  });

  it("a question: the converse bot bound to its note under the MR, with its discussion for thread_context", () => {
    const d = decide("/re-review why?");
    expect(d).toMatchObject({
      check: {
        threadContext: "6a9c1750b37d513a43987b574953fceb50b03ce7",
        pending: { subjectId: `${MR}/note:1244`, parentSubjectId: MR, bots: [{ botId: "converse", vars: { trigger_args: "why?" } }] },
      },
    });
    expect(d.kind === "forge" && d.check.pending.bots[0]?.vars.re_review).toBeUndefined();
  });

  it("an allow-listed replier needs no gate; a fan-out config keys each bot", () => {
    const d = decide("/improve", {
      authorized_repliers: ["BOB"],
      bot_rules: [
        { bot_id: "improve", events: [], commands: {}, author_allowlist: [], author_denylist: [], author_scope: "shared", label_filter: [], launch_vars: {} },
      ],
    });
    expect(d).toMatchObject({ check: { pending: { bots: [{ botId: "improve", idempotencyKey: `${NOTE_KEY}|bot:improve`, improve: true }] } } });
    expect(d.kind === "forge" && d.check.gate).toBeUndefined();
  });

  it("on an issue: surface=issue, the issue as subject, no pull request to prove", () => {
    expect(decide("/improve add a pool", {}, true)).toMatchObject({
      check: {
        provePull: false,
        pending: {
          subjectId: "gl:acme/platform/gitlab-test#3",
          bots: [
            {
              vars: {
                surface: "issue",
                open_mr: "true",
                feature_prompt: "Slow\n\n2 s",
                source_issue_ref: "http://example.com/acme/platform/gitlab-test/-/issues/3",
              },
            },
          ],
        },
      },
    });
  });

  it.each([
    ["the bot's own note", "/re-review", { review_request_logins: ["bob"] }, /bot's own identity/],
    ["a project off the allowlist", "/re-review", { project_allowlist: ["other/*"] }, /project not in project_allowlist/],
    ["a closed MR", "/re-review", {}, /not open/],
  ])("%s is filtered before any forge call", (name, note, config, reason) => {
    const d = name === "a closed MR" ? decideClosed(note) : decide(note, config);
    expect(d).toMatchObject({ kind: "filtered", reason: expect.stringMatching(reason) });
  });
});

function decideClosed(note: string) {
  const payload = fixture("gitlab-note-merge-request") as Record<string, any>;
  payload.object_attributes.note = note;
  payload.merge_request.state = "closed";
  const cfg = webhookConfig({ provider: "forge_a", sign_mode: "token", bot_ids: ["review-pr"] });
  return decideCommand(cfg, forgeEvent("forge_a", "Note Hook", payload), deliveryContext());
}
