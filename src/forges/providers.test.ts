import { describe, expect, it } from "vitest";
import { hmacSha256Hex } from "./shared/verify-signature.js";
import { defaultSignMode, PROVIDERS } from "../webhooks/webhook-config.js";
import { markVerified } from "./shared/verified-payload.js";
import { providers } from "./providers.js";

describe("provider registry conformance", () => {
  it("holds exactly the spec's providers", () => {
    expect(Object.keys(providers).sort()).toEqual([...PROVIDERS].sort());
  });

  describe.each(PROVIDERS.map((name) => [name, providers[name]] as const))("%s", (name, provider) => {
    it("is registered under its own name", () => {
      expect(provider.name).toBe(name);
    });

    it("defaults to the config's default sign mode and has headers for each mode", () => {
      expect(provider.signModes[0]).toBe(defaultSignMode(name));
      expect(provider.signModes.includes("token")).toBe(provider.headers.token.length > 0);
      expect(provider.signModes.includes("hmac")).toBe(provider.headers.signature.length > 0);
    });

    it("reads an event header (generic's only marks a test delivery)", () => {
      expect(provider.headers.event.length).toBeGreaterThan(0);
      if (name === "generic") expect(provider.headers.event).toEqual(["X-Service-Event"]);
    });

    it("rejects an unproven body in every mode as a value", () => {
      const rawBody = Buffer.from("{}");
      expect(provider.verify({ headers: {}, rawBody, auth: { mode: "hmac", secret: "s" } }).ok).toBe(false);
      expect(provider.verify({ headers: {}, rawBody, auth: { mode: "token", verifyToken: () => true } }).ok).toBe(false);
    });

    it("proves and parses its own test delivery, signed as the forge signs it", () => {
      const test = provider.testDelivery({ url: "https://service.example/api/webhooks/x/wh_1", hookId: "wh_1", deliveryId: "d-1" });
      const rawBody = Buffer.from(JSON.stringify(test.body));
      const headers: Record<string, string> = { ...test.headers };
      if (provider.signModes.includes("hmac")) {
        headers[provider.headers.signature[0]!.toLowerCase()] = provider.signatureValue!(hmacSha256Hex("s", rawBody));
        const proven = provider.verify({ headers, rawBody, auth: { mode: "hmac", secret: "s" } });
        expect(proven.ok && provider.parse(proven.payload, headers).ok).toBe(true);
      }
      if (provider.headers.event.length > 0) expect(test.headers[provider.headers.event[0]!.toLowerCase()]).toBe(test.event);
      expect(provider.parse(markVerified(rawBody.toString(), ""), headers).ok).toBe(true);
    });

    it("answers bad JSON with a value, never an exception", () => {
      for (const text of ["", "{", "null", "[]", '"x"', "1"]) {
        expect(provider.parse(markVerified(text, ""), {}).ok).toBe(false);
      }
      expect(provider.parse(markVerified("{}", ""), {}).ok).toBe(true);
    });
  });
});
