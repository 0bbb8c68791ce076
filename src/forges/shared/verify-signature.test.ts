import { describe, expect, it } from "vitest";
import { hmacSha256Hex, verifySignature } from "./verify-signature.js";

// https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries#testing-the-webhook-payload-validation
const SECRET = "It's a Secret to Everybody";
const BODY = Buffer.from("Hello, World!");
const HEX = "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

describe("verifySignature", () => {
  it("verifies GitHub's documented test vector", () => {
    expect(hmacSha256Hex(SECRET, BODY)).toBe(HEX);
    expect(verifySignature(SECRET, BODY, `sha256=${HEX}`, "prefixed")).toEqual({ ok: true });
    expect(verifySignature(SECRET, BODY, `sha256=${HEX}`, "prefix-optional")).toEqual({ ok: true });
  });

  it("accepts bare hex only where the prefix is optional", () => {
    expect(verifySignature(SECRET, BODY, HEX, "prefix-optional")).toEqual({ ok: true });
    expect(verifySignature(SECRET, BODY, HEX, "prefixed")).toEqual({ ok: false, reason: "signature lacks the sha256= prefix" });
  });

  it("compares hex case-insensitively (the bytes are what count)", () => {
    expect(verifySignature(SECRET, BODY, `sha256=${HEX.toUpperCase()}`, "prefixed").ok).toBe(true);
  });

  it.each([
    ["a changed body", SECRET, Buffer.from("Hello, World?"), `sha256=${HEX}`, "signature mismatch"],
    ["another secret", "wrong", BODY, `sha256=${HEX}`, "signature mismatch"],
    ["a short signature", SECRET, BODY, `sha256=${HEX.slice(0, 62)}`, "signature has the wrong length"],
    ["a long signature", SECRET, BODY, `sha256=${HEX}00`, "signature has the wrong length"],
    ["an empty signature", SECRET, BODY, "", "signature has the wrong length"],
    ["non-hex of the right length", SECRET, BODY, `sha256=${"z".repeat(64)}`, "signature is not hex"],
    ["odd non-hex bytes", SECRET, BODY, `sha256=${HEX.slice(0, 63)}g`, "signature is not hex"],
    ["a sha1 signature", SECRET, BODY, "sha1=0123456789abcdef0123456789abcdef01234567", "signature has the wrong length"],
  ])("rejects %s without throwing", (_name, secret, body, header, reason) => {
    expect(verifySignature(secret, body, header, "prefix-optional")).toEqual({ ok: false, reason });
  });

  it("signs the exact bytes: a re-serialised body does not verify", () => {
    const raw = Buffer.from('{"a": 1}');
    const sig = `sha256=${hmacSha256Hex("s", raw)}`;
    expect(verifySignature("s", raw, sig, "prefixed").ok).toBe(true);
    expect(verifySignature("s", Buffer.from(JSON.stringify({ a: 1 })), sig, "prefixed").ok).toBe(false);
  });
});
