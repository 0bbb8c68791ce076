import { tokenMatches } from "../webhooks/webhook-token.js";
import { describe, expect, it } from "vitest";
import { hashToken, sha256Hex } from "../core/secrets.js";
import { evaluateDelivery } from "./evaluate-delivery.js";
import { deliveryContext, fixtureBytes, githubExample, loadGithubExamples, webhookConfig } from "./fixtures/fixtures.js";
import { prepareBody } from "./pipeline/prepare-body.js";
import { hmacSha256Hex } from "../forges/shared/verify-signature.js";

const examples = loadGithubExamples();
const SECRET = "wh_secret";

describe("evaluateDelivery", () => {
  it("verifies, parses and decides a signed GitHub delivery, summarising it for the row", () => {
    const rawBody = Buffer.from(JSON.stringify(githubExample(examples, "pull_request", "opened")));
    const headers = { "x-github-event": "pull_request", "x-github-delivery": "d-1", "x-hub-signature-256": `sha256=${hmacSha256Hex(SECRET, rawBody)}` };
    const body = prepareBody({ provider: "forge_b", headers, rawBody, auth: { mode: "hmac", secret: SECRET } });
    const out = evaluateDelivery({ config: webhookConfig(), headers, body, context: deliveryContext() });
    expect(out.decision.kind).toBe("launch");
    expect(out.summary).toEqual({
      payloadSha256: sha256Hex(rawBody),
      deliveryId: "d-1",
      eventKind: "pull_request",
      eventAction: "opened",
      projectPath: "Codertocat/Hello-World",
      subjectId: "gh:Codertocat/Hello-World#2",
      subjectSha: "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
    });
  });

  it("records a bad signature as invalid and never parses", () => {
    const rawBody = Buffer.from("{broken");
    const headers = { "x-hub-signature-256": `sha256=${"0".repeat(64)}` };
    const body = prepareBody({ provider: "forge_b", headers, rawBody, auth: { mode: "hmac", secret: SECRET } });
    const out = evaluateDelivery({ config: webhookConfig(), headers, body, context: deliveryContext() });
    expect(out.decision).toEqual({ kind: "invalid", code: "bad_signature", reason: "X-Hub-Signature-256: signature mismatch" });
    expect(out.event).toBeUndefined();
  });

  it("summarises a filtered GitLab delivery (token mode) with its delivery id", () => {
    const rawBody = fixtureBytes("gitlab-merge-request-update-unchanged");
    const headers = { "x-gitlab-event": "Merge Request Hook", "x-gitlab-token": "wh_tok", "x-gitlab-event-uuid": "uuid-1" };
    const body = prepareBody({
      provider: "forge_a",
      headers,
      rawBody,
      auth: { mode: "token", verifyToken: (t) => tokenMatches({ token_hash: hashToken("wh_tok") }, t) },
    });
    const out = evaluateDelivery({ config: webhookConfig({ provider: "forge_a", sign_mode: "token" }), headers, body, context: deliveryContext() });
    expect(out.decision.kind).toBe("filtered");
    expect(out.summary).toMatchObject({ deliveryId: "uuid-1", eventKind: "merge_request", eventAction: "update", subjectId: "gl:acme/platform/gitlab-test!7" });
  });
});
