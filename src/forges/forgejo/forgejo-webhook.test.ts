import { describe, expect, it } from "vitest";
import { fixture, fixtureBytes } from "../../intake/fixtures/fixtures.js";
import { hmacSha256Hex } from "../shared/verify-signature.js";
import { forgejoWebhook } from "./forgejo-webhook.js";

const SECRET = "wh_forge_c_secret";
const hmac = { mode: "hmac" as const, secret: SECRET };
const hex = (body: Buffer | string, secret = SECRET) => hmacSha256Hex(secret, Buffer.isBuffer(body) ? body : Buffer.from(body));

function parse(name: string, headers: Record<string, string> = { "x-forgejo-event": "pull_request" }) {
  const rawBody = fixtureBytes(name);
  const all = { "x-forgejo-signature": hex(rawBody), ...headers };
  const v = forgejoWebhook.verify({ headers: all, rawBody, auth: hmac });
  if (!v.ok) throw new Error(v.reason);
  const p = forgejoWebhook.parse(v.payload, all);
  if (!p.ok || p.event.provider === "generic") throw new Error("did not parse");
  return p.event;
}

describe("forge_c (Forgejo/Gitea/Gogs) verify", () => {
  const rawBody = fixtureBytes("forgejo-pull-request-opened");

  it.each(["X-Forgejo-Signature", "X-Forge-C-Signature", "X-Gitea-Signature", "X-Gogs-Signature", "X-Forge-C-Legacy-Signature"])(
    "verifies %s, bare hex or sha256=",
    (name) => {
      expect(forgejoWebhook.verify({ headers: { [name]: hex(rawBody) }, rawBody, auth: hmac }).ok).toBe(true);
      expect(forgejoWebhook.verify({ headers: { [name]: `sha256=${hex(rawBody)}` }, rawBody, auth: hmac }).ok).toBe(true);
    },
  );

  it("checks the first header present: a bad Forgejo signature is not rescued by a good Gitea one", () => {
    const headers = { "x-forgejo-signature": hex(rawBody, "old secret"), "x-gitea-signature": hex(rawBody) };
    expect(forgejoWebhook.verify({ headers, rawBody, auth: hmac })).toMatchObject({
      ok: false,
      code: "bad_signature",
      reason: "X-Forgejo-Signature: signature mismatch",
    });
  });

  it("verifies a form delivery over the decoded payload JSON, not the body", () => {
    const json = rawBody.toString("utf8");
    const form = Buffer.from(new URLSearchParams({ payload: json }).toString());
    const base = { "content-type": "application/x-www-form-urlencoded" };
    const good = forgejoWebhook.verify({ headers: { ...base, "x-gitea-signature": hex(json) }, rawBody: form, auth: hmac });
    expect(good.ok && good.payload.text).toBe(json);
    const bodySigned = forgejoWebhook.verify({ headers: { ...base, "x-gitea-signature": hex(form) }, rawBody: form, auth: hmac });
    expect(bodySigned.ok).toBe(false);
    const noPayload = Buffer.from("other=1");
    expect(forgejoWebhook.verify({ headers: { ...base, "x-gitea-signature": hex(json) }, rawBody: noPayload, auth: hmac })).toMatchObject({
      ok: false,
      code: "bad_payload",
    });
  });
});

describe("forge_c parse", () => {
  it("normalises a Forgejo pull_request opened", () => {
    expect(parse("forgejo-pull-request-opened")).toMatchObject({
      provider: "forge_c",
      kind: "pull_request",
      action: "opened",
      projectPath: "acme/widgets",
      projectId: "5",
      repoUrl: "https://forgejo.example.com/acme/widgets.git",
      number: 3,
      headSha: "5f0b2f0c3a1d6a4f2b8e9c7d1e0f3a2b4c6d8e0f",
      baseRef: "main",
      headRef: "feature/rate-limit",
      url: "https://forgejo.example.com/acme/widgets/pulls/3",
      authorLogin: "alice",
      actorLogin: "alice",
      labels: [],
      draft: false,
      fork: { state: "same" },
      state: "open",
    });
  });

  it("reads Gitea's synchronized as synchronize", () => {
    expect(parse("forgejo-pull-request-synchronized")).toMatchObject({
      action: "synchronize",
      headSha: "7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e",
      eventAt: "2024-03-04T11:02:40Z",
    });
  });

  it("reads closed and edited", () => {
    expect(parse("forgejo-pull-request-closed")).toMatchObject({ action: "closed", state: "closed", merged: true });
    expect(parse("forgejo-pull-request-edited")).toMatchObject({ action: "edited", draft: false });
  });

  it.each([
    ["X-Forgejo-Event", "pull_request"],
    ["X-Forge-C-Event", "pull_request"],
    ["X-Gitea-Event", "pull_request"],
    ["X-Gogs-Event", "pull_request"],
    ["X-Forge-C-Legacy-Event", "pull_request"],
  ])("reads the event from %s", (name, value) => {
    expect(parse("forgejo-pull-request-opened", { [name]: value }).kind).toBe("pull_request");
  });

  it("prefers X-Forgejo-Event over the legacy spelling", () => {
    expect(parse("forgejo-pull-request-opened", { "x-gitea-event": "push", "x-forgejo-event": "pull_request" }).kind).toBe("pull_request");
  });

  it("treats a WIP: title as a draft where the draft field is missing (older Gitea)", () => {
    const payload = fixture("forgejo-pull-request-opened");
    const pr = payload.pull_request as Record<string, unknown>;
    delete pr.draft;
    pr.title = "WIP: Add a token-bucket rate limiter";
    const rawBody = Buffer.from(JSON.stringify(payload));
    const headers = { "x-gitea-event": "pull_request", "x-gitea-signature": hex(rawBody) };
    const v = forgejoWebhook.verify({ headers, rawBody, auth: hmac });
    expect(v.ok && forgejoWebhook.parse(v.payload, headers)).toMatchObject({ ok: true, event: { draft: true } });
  });

  it("reads Gogs users, which carry username and no login", () => {
    const payload = fixture("forgejo-pull-request-opened");
    payload.sender = { id: 2, username: "alice" };
    const rawBody = Buffer.from(JSON.stringify(payload));
    const headers = { "x-gogs-event": "pull_request", "x-gogs-signature": hex(rawBody) };
    const v = forgejoWebhook.verify({ headers, rawBody, auth: hmac });
    expect(v.ok && forgejoWebhook.parse(v.payload, headers)).toMatchObject({ ok: true, event: { actorLogin: "alice" } });
  });

  it("marks a Gitea PR comment (is_pull) as pull_request_comment", () => {
    const payload = {
      action: "created",
      is_pull: true,
      issue: { number: 3, state: "open" },
      comment: { id: 77, body: "/re-review" },
      repository: { full_name: "acme/widgets" },
    };
    const rawBody = Buffer.from(JSON.stringify(payload));
    const headers = { "x-gitea-event": "issue_comment", "x-gitea-signature": hex(rawBody) };
    const v = forgejoWebhook.verify({ headers, rawBody, auth: hmac });
    expect(v.ok && forgejoWebhook.parse(v.payload, headers)).toMatchObject({
      ok: true,
      event: { kind: "pull_request_comment", commentId: "77", commentBody: "/re-review", number: 3 },
    });
  });
});
