import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../core/secrets.js";
import { hmacSha256Hex } from "../shared/verify-signature.js";
import { generic } from "./generic-webhook.js";

const TOKEN = "wh_generic_token";
const rawBody = Buffer.from(JSON.stringify({ bot: "review-pr", vars: { a: "1" } }));

describe("generic provider", () => {
  it("checks the bearer token in X-Service-Webhook-Token", () => {
    const auth = { mode: "token" as const, verifyToken: (t: string) => t === TOKEN };
    expect(generic.verify({ headers: { "x-service-webhook-token": TOKEN }, rawBody, auth }).ok).toBe(true);
    expect(generic.verify({ headers: { "x-service-webhook-token": "nope" }, rawBody, auth })).toMatchObject({ ok: false, code: "bad_signature" });
    expect(generic.verify({ headers: {}, rawBody, auth })).toMatchObject({ ok: false, reason: "missing token" });
  });

  it("checks X-Service-Webhook-Signature in hmac mode, sha256= or bare hex", () => {
    const auth = { mode: "hmac" as const, secret: TOKEN };
    const sig = hmacSha256Hex(TOKEN, rawBody);
    expect(generic.verify({ headers: { "x-service-webhook-signature": sig }, rawBody, auth }).ok).toBe(true);
    expect(generic.verify({ headers: { "x-service-webhook-signature": `sha256=${sig}` }, rawBody, auth }).ok).toBe(true);
    const flipped = (sig.startsWith("0") ? "1" : "0") + sig.slice(1);
    expect(generic.verify({ headers: { "x-service-webhook-signature": flipped }, rawBody, auth })).toMatchObject({ ok: false });
    expect(generic.verify({ headers: { "x-service-webhook-token": TOKEN }, rawBody, auth })).toMatchObject({
      ok: false,
      reason: "missing signature",
    });
  });

  it("parses a JSON object and carries the raw body's SHA-256", () => {
    const auth = { mode: "token" as const, verifyToken: () => true };
    const v = generic.verify({ headers: { "x-service-webhook-token": TOKEN }, rawBody, auth });
    expect(v.ok && generic.parse(v.payload, {})).toEqual({
      ok: true,
      event: { provider: "generic", kind: "generic", body: { bot: "review-pr", vars: { a: "1" } }, rawSha256: sha256Hex(rawBody) },
    });
    const arr = Buffer.from("[1,2]");
    const va = generic.verify({ headers: { "x-service-webhook-token": TOKEN }, rawBody: arr, auth });
    expect(va.ok && generic.parse(va.payload, {})).toEqual({ ok: false, reason: "generic: body is not a JSON object" });
  });

  it("refuses form-encoded bodies", () => {
    const auth = { mode: "token" as const, verifyToken: () => true };
    const headers = { "x-service-webhook-token": TOKEN, "content-type": "application/x-www-form-urlencoded" };
    expect(generic.verify({ headers, rawBody: Buffer.from("payload=%7B%7D"), auth })).toMatchObject({ ok: false, code: "bad_payload" });
  });
});
