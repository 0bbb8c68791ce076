import { firstHeaderValue } from "../shared/headers.js";
import { parseJsonObject } from "../shared/json-guards.js";
import { verifyBody } from "../shared/verify-body.js";
import { parseGithubLike } from "./github-like-parse.js";
import { FORGE_MAX_BODY_BYTES, type NamedProvider } from "../shared/provider.js";

/** GitHub: `sha256=<hex>` over the body as sent, form deliveries included. */
export const githubWebhook: NamedProvider<"forge_b"> = {
  name: "forge_b",
  headers: {
    event: ["X-GitHub-Event", "X-Forge-B-Event"],
    delivery: ["X-GitHub-Delivery"],
    token: [],
    signature: ["X-Hub-Signature-256", "X-Forge-B-Signature-256"],
  },
  signModes: ["hmac"],
  maxBodyBytes: FORGE_MAX_BODY_BYTES,
  verify(input) {
    return verifyBody(this.headers, { format: "prefixed", form: "sign-body" }, input);
  },
  parse(payload, headers) {
    const root = parseJsonObject(payload.text);
    if (!root) return { ok: false, reason: "payload is not a JSON object" };
    return { ok: true, event: parseGithubLike(this.name, firstHeaderValue(headers, this.headers.event) ?? "", root) };
  },
};
