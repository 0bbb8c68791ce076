import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { STANDARD_TOLERANCE_MS, standardSecret, verifyStandardWebhook } from "./verify-standard-webhook.js";

const SECRET = "wh_standard_secret";
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const body = Buffer.from('{"bot":"review-pr"}');
/** Headers as the Standard Webhooks library signs them. */
const signed = (at = NOW, payload = body.toString(), secret = SECRET) => ({
  "webhook-id": "msg_1",
  "webhook-timestamp": String(Math.floor(at / 1000)),
  "webhook-signature": new Webhook(standardSecret(secret)).sign("msg_1", new Date(at), payload),
});

describe("verifyStandardWebhook", () => {
  it.each([
    ["signed by the library", signed(), true],
    ["one of several signatures matching", { ...signed(), "webhook-signature": `v1,${"A".repeat(43)}= ${signed()["webhook-signature"]}` }, true],
    ["at the tolerance's edge", signed(NOW - STANDARD_TOLERANCE_MS), true],
    ["signed with another secret", signed(NOW, body.toString(), "wh_other"), false],
    ["another body", signed(NOW, '{"bot":"converse"}'), false],
    ["another id", { ...signed(), "webhook-id": "msg_2" }, false],
    ["older than the tolerance (a replay)", signed(NOW - STANDARD_TOLERANCE_MS - 1000), false],
    ["from the future past the tolerance", signed(NOW + STANDARD_TOLERANCE_MS + 1000), false],
    ["a timestamp in milliseconds", { ...signed(), "webhook-timestamp": String(NOW) }, false],
    ["a v2 signature only", { ...signed(), "webhook-signature": signed()["webhook-signature"].replace("v1,", "v2,") }, false],
    ["no signature header", { "webhook-id": "msg_1", "webhook-timestamp": String(NOW / 1000) }, false],
  ] as const)("%s → %s", (_what, headers, ok) => {
    expect(verifyStandardWebhook(SECRET, headers, body, NOW).ok).toBe(ok);
  });
});
