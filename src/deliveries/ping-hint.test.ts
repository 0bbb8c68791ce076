import { describe, expect, it } from "vitest";
import { pingHint } from "./ping-hint.js";
import { unreachableCause, type Posted } from "./post-delivery.js";

const URL_ = "https://hooks.example.com/api/webhooks/forge_b/whk_1";
const answered = (status: number, json: Record<string, unknown> | null, location: string | null = null): Posted => ({
  kind: "answered",
  status,
  location,
  json,
  text: json ? null : "<html>Bad Gateway</html>",
});
const filtered = { status: "filtered", delivery_id: "dlv_1", reason: "ping: nothing to launch" };

describe("unreachableCause", () => {
  it.each([
    [{ code: "ECONNREFUSED" }, "refused"],
    [Object.assign(new AggregateError([{ code: "ECONNREFUSED" }, { code: "ECONNREFUSED" }]), {}), "refused"],
    [{ code: "ENOTFOUND" }, "dns"],
    [{ code: "EAI_AGAIN" }, "dns"],
    [{ code: "ETIMEDOUT" }, "timeout"],
    [{ code: "ECONNRESET" }, "reset"],
    [{ code: "ERR_SSL_WRONG_VERSION_NUMBER" }, "tls"],
    [{ code: "DEPTH_ZERO_SELF_SIGNED_CERT" }, "tls"],
    [{ code: "CERT_HAS_EXPIRED" }, "tls"],
    [{ code: "ERR_TLS_CERT_ALTNAME_INVALID" }, "tls"],
    [{ code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" }, "tls"],
    [{ code: "EHOSTUNREACH" }, "network"],
    [new Error("no code"), "network"],
    [null, "network"],
  ])("%o is %s", (err, cause) => {
    expect(unreachableCause(err)).toBe(cause);
  });
});

describe("pingHint", () => {
  it.each([
    [
      "refused",
      { kind: "unreachable", cause: "refused", message: "connect ECONNREFUSED" },
      /^Nothing accepts connections at https:\/\/hooks\.example\.com\. SERVICE_BASE_URL must be/,
    ],
    ["dns", { kind: "unreachable", cause: "dns", message: "getaddrinfo ENOTFOUND" }, /^hooks\.example\.com does not resolve from here\. SERVICE_BASE_URL/],
    ["timeout", { kind: "unreachable", cause: "timeout", message: "no answer within 10 s" }, /did not answer in time: a firewall/],
    [
      "tls",
      { kind: "unreachable", cause: "tls", message: "self-signed certificate" },
      /TLS handshake with https:\/\/hooks\.example\.com failed: its certificate must be valid for hooks\.example\.com/,
    ],
    ["reset", { kind: "unreachable", cause: "reset", message: "socket hang up" }, /closed the connection without an answer/],
    [
      "another error",
      { kind: "unreachable", cause: "network", message: "EHOSTUNREACH" },
      /^The request to https:\/\/hooks\.example\.com failed\. SERVICE_BASE_URL/,
    ],
    ["a redirect", answered(301, null, "https://www.example.com/x"), /redirects to https:\/\/www\.example\.com\/x; forges do not follow redirects/],
    ["a proxy's page", answered(502, null), /answered 502, but not as this service \(its answers are JSON\)/],
    [
      "no such path",
      answered(404, { error: "not_found", message: "route not found" }),
      /has no delivery endpoint at \/api\/webhooks\/forge_b\/whk_1: check the path/,
    ],
    ["an unknown webhook", answered(401, { error: "invalid_webhook" }), /does not know this webhook: SERVICE_BASE_URL reaches another instance/],
  ] as const)("%s says what to check", (_, posted, hint) => {
    expect(pingHint({ url: URL_, posted: posted as Posted, listed: false })).toMatch(hint);
  });

  it("names a delivery another instance recorded, and says nothing when this service recorded it on a public address", () => {
    expect(pingHint({ url: URL_, posted: answered(200, filtered), listed: false })).toMatch(
      /did not record delivery dlv_1: SERVICE_BASE_URL reaches another instance/,
    );
    expect(pingHint({ url: URL_, posted: answered(200, filtered), listed: true })).toBeNull();
    expect(pingHint({ url: "https://203.0.114.9/api/webhooks/forge_b/whk_1", posted: answered(200, filtered), listed: true })).toBeNull();
    // A refusal by the service itself (a wrong token) is the answer's to explain.
    expect(pingHint({ url: URL_, posted: answered(401, { error: "invalid_webhook_token" }), listed: false })).toBeNull();
  });

  it.each([
    ["http://127.0.0.1:8080", /loopback address: only this machine/],
    ["http://localhost:8080", /loopback address/],
    ["http://[::1]:8080", /loopback address/],
    ["http://10.0.4.2", /private address: only a forge on that network/],
    ["http://[fd00::5]", /private address/],
  ])("says that %s reached from here is out of a forge's reach", (base, hint) => {
    expect(pingHint({ url: `${base}/api/webhooks/forge_b/whk_1`, posted: answered(200, filtered), listed: true })).toMatch(hint);
  });
});
