import { firstHeaderValue } from "../shared/headers.js";
import { parseJsonObject } from "../shared/json-guards.js";
import { verifyBody } from "../shared/verify-body.js";
import { parseGithubLike } from "../github/github-like-parse.js";
import { FORGE_MAX_BODY_BYTES, type NamedProvider } from "../shared/provider.js";
import { PING_REPO, ZERO_SHA } from "../shared/test-delivery.js";
import { PROVIDER_NAMES } from "../../webhooks/provider-names.js";

/**
 * Forgejo, Gitea or Gogs: hex HMAC with or without `sha256=`. Form deliveries
 * (`payload=<urlencoded JSON>`) sign the JSON, not the body.
 */
export const forgejoWebhook: NamedProvider<"forge_c"> = {
  name: "forge_c",
  headers: {
    event: ["X-Forgejo-Event", "X-Forge-C-Event", "X-Gitea-Event", "X-Gogs-Event", "X-Forge-C-Legacy-Event"],
    delivery: ["X-Forgejo-Delivery", "X-Gitea-Delivery"],
    token: [],
    signature: ["X-Forgejo-Signature", "X-Forge-C-Signature", "X-Gitea-Signature", "X-Gogs-Signature", "X-Forge-C-Legacy-Signature"],
  },
  signModes: PROVIDER_NAMES.forge_c.signModes,
  maxBodyBytes: FORGE_MAX_BODY_BYTES,
  verify(input) {
    return verifyBody(this.headers, { format: "prefix-optional", form: "sign-payload" }, input);
  },
  parse(payload, headers) {
    const root = parseJsonObject(payload.text);
    if (!root) return { ok: false, reason: "payload is not a JSON object" };
    return { ok: true, event: parseGithubLike(this.name, firstHeaderValue(headers, this.headers.event) ?? "", root) };
  },
  // Forgejo's and Gitea's "Test Delivery" sends a push event.
  testDelivery: ({ deliveryId }) => ({
    event: "push",
    headers: { "x-forgejo-event": "push", "x-gitea-event": "push", "x-forgejo-delivery": deliveryId, "x-gitea-delivery": deliveryId },
    body: {
      ref: "refs/heads/main",
      before: ZERO_SHA,
      after: ZERO_SHA,
      commits: [],
      total_commits: 0,
      repository: PING_REPO,
      pusher: { login: "service-ping" },
      sender: { login: "service-ping" },
    },
  }),
  // Forgejo and Gitea send the digest bare.
  signatureValue: (hex) => hex,
};
