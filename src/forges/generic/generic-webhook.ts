import { parseJsonObject } from "../shared/json-guards.js";
import { firstHeaderValue } from "../shared/headers.js";
import { verifyBody } from "../shared/verify-body.js";
import type { Provider } from "../shared/provider.js";
import { PROVIDER_NAMES } from "../../webhooks/provider-names.js";

/** 256 vars of 4 KiB, each at worst six-fold as JSON escapes, and the rest of the request. */
const GENERIC_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** A custom caller: a bearer token header by default; hmac (`sha256=<hex>` or bare hex) or Standard Webhooks opted in. */
export const generic: Provider = {
  name: "generic",
  headers: {
    // `ping` marks a test delivery (POST …/webhooks/{id}/ping): proven, recorded, nothing launched.
    event: ["X-Service-Event"],
    delivery: [],
    token: ["X-Service-Webhook-Token"],
    signature: ["X-Service-Webhook-Signature"],
  },
  signModes: PROVIDER_NAMES.generic.signModes,
  maxBodyBytes: GENERIC_MAX_BODY_BYTES,
  verify(input) {
    return verifyBody(this.headers, { format: "prefix-optional", form: "refuse" }, input);
  },
  parse(payload, headers) {
    const body = parseJsonObject(payload.text);
    if (!body) return { ok: false, reason: "generic: body is not a JSON object" };
    const ping = firstHeaderValue(headers, this.headers.event) === "ping";
    return { ok: true, event: { provider: "generic", kind: "generic", body, rawSha256: payload.rawSha256, ...(ping && { ping }) } };
  },
  testDelivery: () => ({ event: "ping", headers: { "x-service-event": "ping" }, body: { ping: true } }),
  signatureValue: (hex) => `sha256=${hex}`,
};
