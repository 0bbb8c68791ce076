import { firstHeaderValue } from "../shared/headers.js";
import { parseJsonObject } from "../shared/json-guards.js";
import { verifyBody } from "../shared/verify-body.js";
import { parseGithubLike } from "./github-like-parse.js";
import { FORGE_MAX_BODY_BYTES, type NamedProvider } from "../shared/provider.js";
import { PING_REPO } from "../shared/test-delivery.js";
import { PROVIDER_NAMES } from "../../webhooks/provider-names.js";

/** GitHub: `sha256=<hex>` over the body as sent, form deliveries included. */
export const githubWebhook: NamedProvider<"forge_b"> = {
  name: "forge_b",
  headers: {
    event: ["X-GitHub-Event", "X-Forge-B-Event"],
    delivery: ["X-GitHub-Delivery"],
    token: [],
    signature: ["X-Hub-Signature-256", "X-Forge-B-Signature-256"],
  },
  signModes: PROVIDER_NAMES.forge_b.signModes,
  maxBodyBytes: FORGE_MAX_BODY_BYTES,
  verify(input) {
    return verifyBody(this.headers, { format: "prefixed", form: "sign-body" }, input);
  },
  parse(payload, headers) {
    const root = parseJsonObject(payload.text);
    if (!root) return { ok: false, reason: "payload is not a JSON object" };
    return { ok: true, event: parseGithubLike(this.name, firstHeaderValue(headers, this.headers.event) ?? "", root) };
  },
  // https://docs.github.com/en/webhooks/webhook-events-and-payloads#ping
  testDelivery: ({ url, hookId, deliveryId }) => ({
    event: "ping",
    headers: { "x-github-event": "ping", "x-github-delivery": deliveryId, "x-github-hook-id": hookId },
    body: {
      zen: "Keep it logically awesome.",
      hook_id: 0,
      hook: { type: "Repository", name: "web", active: true, events: ["*"], config: { content_type: "json", insecure_ssl: "0", url } },
      repository: PING_REPO,
      sender: { login: "service-ping", type: "User" },
    },
  }),
  signatureValue: (hex) => `sha256=${hex}`,
};
