import { firstHeaderValue } from "../shared/headers.js";
import { parseJsonObject } from "../shared/json-guards.js";
import { verifyBody } from "../shared/verify-body.js";
import { parseGitlab } from "./gitlab-parse.js";
import { FORGE_MAX_BODY_BYTES, type NamedProvider } from "../shared/provider.js";
import { PING_REPO, ZERO_SHA } from "../shared/test-delivery.js";
import { PROVIDER_NAMES } from "../../webhooks/provider-names.js";

/** GitLab: it echoes the secret token verbatim and signs nothing. */
export const gitlabWebhook: NamedProvider<"forge_a"> = {
  name: "forge_a",
  headers: {
    event: ["X-Gitlab-Event", "X-Forge-A-Event"],
    delivery: ["Idempotency-Key", "X-Gitlab-Event-UUID"],
    token: ["X-Gitlab-Token", "X-Forge-A-Token", "X-Service-Webhook-Token"],
    signature: [],
  },
  signModes: PROVIDER_NAMES.forge_a.signModes,
  maxBodyBytes: FORGE_MAX_BODY_BYTES,
  verify(input) {
    return verifyBody(this.headers, { format: "prefix-optional", form: "refuse" }, input);
  },
  parse(payload, headers) {
    const root = parseJsonObject(payload.text);
    if (!root) return { ok: false, reason: "payload is not a JSON object" };
    return { ok: true, event: parseGitlab(firstHeaderValue(headers, this.headers.event) ?? "", root) };
  },
  // GitLab's "Test" sends a push event sample.
  testDelivery: ({ deliveryId }) => ({
    event: "Push Hook",
    headers: { "x-gitlab-event": "Push Hook", "x-gitlab-event-uuid": deliveryId },
    body: {
      object_kind: "push",
      event_name: "push",
      before: ZERO_SHA,
      after: ZERO_SHA,
      ref: "refs/heads/main",
      user_username: "service-ping",
      project_id: 1,
      project: { id: 1, name: "ping", path_with_namespace: "service/ping", web_url: PING_REPO.html_url, default_branch: "main" },
      commits: [],
      total_commits_count: 0,
      repository: { name: "ping", homepage: PING_REPO.html_url },
    },
  }),
};
