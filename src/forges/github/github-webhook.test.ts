import { describe, expect, it } from "vitest";
import { githubExample, loadGithubExamples } from "../../intake/fixtures/fixtures.js";
import { hmacSha256Hex } from "../shared/verify-signature.js";
import { githubWebhook } from "./github-webhook.js";

const SECRET = "wh_forge_b_secret";
const examples = loadGithubExamples();
const sign = (body: Buffer, secret = SECRET) => `sha256=${hmacSha256Hex(secret, body)}`;
const hmac = { mode: "hmac" as const, secret: SECRET };

function deliver(event: string, payload: unknown, extra: Record<string, string> = {}) {
  const rawBody = Buffer.from(JSON.stringify(payload));
  const headers = { "x-github-event": event, "x-hub-signature-256": sign(rawBody), "content-type": "application/json", ...extra };
  const verified = githubWebhook.verify({ headers, rawBody, auth: hmac });
  if (!verified.ok) throw new Error(verified.reason);
  const parsed = githubWebhook.parse(verified.payload, headers);
  if (!parsed.ok || parsed.event.provider === "generic") throw new Error("did not parse");
  return parsed.event;
}

describe("forge_b (GitHub) verify", () => {
  const rawBody = Buffer.from(JSON.stringify(githubExample(examples, "pull_request", "opened")));

  it("verifies X-Hub-Signature-256 over the raw body", () => {
    expect(githubWebhook.verify({ headers: { "x-hub-signature-256": sign(rawBody) }, rawBody, auth: hmac }).ok).toBe(true);
  });

  it("accepts the neutral X-Forge-B-Signature-256 spelling", () => {
    expect(githubWebhook.verify({ headers: { "x-forge-b-signature-256": sign(rawBody) }, rawBody, auth: hmac }).ok).toBe(true);
  });

  it("does not let a good fallback rescue a bad primary signature", () => {
    const headers = { "x-hub-signature-256": sign(rawBody, "other"), "x-forge-b-signature-256": sign(rawBody) };
    expect(githubWebhook.verify({ headers, rawBody, auth: hmac })).toMatchObject({ ok: false, code: "bad_signature" });
  });

  it("requires the sha256= prefix", () => {
    const headers = { "x-hub-signature-256": hmacSha256Hex(SECRET, rawBody) };
    expect(githubWebhook.verify({ headers, rawBody, auth: hmac })).toMatchObject({ ok: false, reason: expect.stringContaining("prefix") });
  });

  it("rejects a missing signature and token mode", () => {
    expect(githubWebhook.verify({ headers: {}, rawBody, auth: hmac })).toMatchObject({ ok: false, reason: "missing signature" });
    const token = { mode: "token" as const, verifyToken: () => true };
    expect(githubWebhook.verify({ headers: { "x-hub-signature-256": sign(rawBody) }, rawBody, auth: token }).ok).toBe(false);
  });

  it("verifies a form delivery over the body, then takes its payload field", () => {
    const json = JSON.stringify(githubExample(examples, "ping"));
    const form = Buffer.from(new URLSearchParams({ payload: json }).toString());
    const headers = { "content-type": "application/x-www-form-urlencoded", "x-hub-signature-256": sign(form), "x-github-event": "ping" };
    const verified = githubWebhook.verify({ headers, rawBody: form, auth: hmac });
    expect(verified.ok && verified.payload.text).toBe(json);
    // Signing the JSON instead (Gitea's way) is not GitHub's way.
    const wrong = { ...headers, "x-hub-signature-256": sign(Buffer.from(json)) };
    expect(githubWebhook.verify({ headers: wrong, rawBody: form, auth: hmac }).ok).toBe(false);
  });

  it("checks the signature before looking at the body", () => {
    const rawBody = Buffer.from("{not json");
    expect(githubWebhook.verify({ headers: { "x-hub-signature-256": sign(Buffer.from("x")) }, rawBody, auth: hmac })).toMatchObject({
      ok: false,
      code: "bad_signature",
    });
    const ok = githubWebhook.verify({ headers: { "x-hub-signature-256": sign(rawBody) }, rawBody, auth: hmac });
    expect(ok.ok && githubWebhook.parse(ok.payload, {})).toEqual({ ok: false, reason: "payload is not a JSON object" });
  });
});

describe("forge_b (GitHub) parse", () => {
  it("normalises pull_request.opened", () => {
    const e = deliver("pull_request", githubExample(examples, "pull_request", "opened"));
    expect(e).toMatchObject({
      kind: "pull_request",
      action: "opened",
      projectPath: "Codertocat/Hello-World",
      projectId: "186853002",
      repoUrl: "https://github.com/Codertocat/Hello-World.git",
      number: 2,
      headSha: "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
      baseRef: "master",
      headRef: "changes",
      url: "https://github.com/Codertocat/Hello-World/pull/2",
      title: "Update the README with new information.",
      authorLogin: "Codertocat",
      actorLogin: "Codertocat",
      labels: [],
      draft: false,
      fork: { state: "same" },
      authorAssociation: "OWNER",
      state: "open",
      merged: false,
      eventAt: "2019-05-15T15:20:33Z",
    });
  });

  it("reads the neutral X-Forge-B-Event header", () => {
    const payload = githubExample(examples, "pull_request", "opened");
    const rawBody = Buffer.from(JSON.stringify(payload));
    const headers = { "x-forge-b-event": "pull_request", "x-hub-signature-256": sign(rawBody) };
    const v = githubWebhook.verify({ headers, rawBody, auth: hmac });
    expect(v.ok && githubWebhook.parse(v.payload, headers)).toMatchObject({ ok: true, event: { kind: "pull_request" } });
  });

  it("flags a draft, a fork, and a head repo the payload does not name", () => {
    const draft = githubExample(examples, "pull_request", "opened");
    (draft.pull_request as { draft: boolean }).draft = true;
    expect(deliver("pull_request", draft).draft).toBe(true);

    const fork = githubExample(examples, "pull_request", "opened");
    const head = (fork.pull_request as { head: { repo: { id: number; full_name: string } } }).head;
    head.repo.id = 99;
    head.repo.full_name = "alice/Hello-World";
    expect(deliver("pull_request", fork).fork).toEqual({ state: "fork", head: "alice/Hello-World", base: "Codertocat/Hello-World" });

    const gone = githubExample(examples, "pull_request", "opened");
    (gone.pull_request as { head: { repo: unknown } }).head.repo = null;
    expect(deliver("pull_request", gone).fork).toEqual({ state: "unknown" });
  });

  it.each([
    ["pull_request", "closed", { kind: "pull_request", action: "closed", state: "closed" }],
    ["pull_request", "review_requested", { requestedReviewer: "octocat" }],
    ["pull_request", "synchronize", { action: "synchronize" }],
    ["pull_request", "ready_for_review", { action: "ready_for_review" }],
    ["issues", "labeled", { kind: "issues", number: 1, appliedLabels: ["bug"], labels: ["bug"], state: "open" }],
    ["issue_comment", "created", { kind: "note", commentId: "492700400", commentOn: "issue" }],
    ["pull_request_review_comment", "created", { kind: "pull_request_review_comment", commentOn: "pull_request" }],
    ["ping", undefined, { kind: "ping" }],
    ["push", undefined, { kind: "push" }],
  ])("normalises %s.%s", (event, action, want) => {
    expect(deliver(event, githubExample(examples, event, action))).toMatchObject(want);
  });

  it("marks issue_comment on a pull request as pull_request_comment", () => {
    const payload = githubExample(examples, "issue_comment", "created");
    (payload.issue as Record<string, unknown>).pull_request = { url: "https://api.github.com/repos/Codertocat/Hello-World/pulls/1" };
    expect(deliver("issue_comment", payload)).toMatchObject({ kind: "pull_request_comment", commentOn: "pull_request" });
  });

  it("names an unknown event other", () => {
    expect(deliver("star", githubExample(examples, "ping")).kind).toBe("other");
  });
});
