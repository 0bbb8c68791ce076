import { describe, expect, it } from "vitest";
import { deliveryAddress, parseWebhookBase } from "./webhook-base.js";

describe("parseWebhookBase", () => {
  it.each([
    ["https://hooks.example.com", "https://hooks.example.com", false],
    ["https://hooks.example.com/", "https://hooks.example.com", false],
    ["  https://Hooks.Example.com:8443  ", "https://hooks.example.com:8443", false],
    ["http://127.0.0.1:3000", "http://127.0.0.1:3000", false],
    ["http://localhost", "http://localhost", false],
    ["http://[::1]:8080", "http://[::1]:8080", false],
    ["http://hooks.example.com", "http://hooks.example.com", true],
    ["http://10.0.0.5", "http://10.0.0.5", true],
  ])("accepts %s as %s (plain http warned: %s)", (input, base, plainHttp) => {
    expect(parseWebhookBase(input)).toEqual({ ok: true, base, plainHttp });
  });

  it("clears the pin on an empty value", () => {
    expect(parseWebhookBase("")).toEqual({ ok: true, base: null, plainHttp: false });
    expect(parseWebhookBase("   ")).toEqual({ ok: true, base: null, plainHttp: false });
  });

  it.each([
    "not a url",
    "hooks.example.com",
    "ftp://hooks.example.com",
    "https://hooks.example.com/api",
    "https://hooks.example.com/api/webhooks/",
    "https://hooks.example.com?x=1",
    "https://hooks.example.com/?",
    "https://hooks.example.com#top",
    "https://user:pw@hooks.example.com",
  ])("refuses %s", (input) => {
    expect(parseWebhookBase(input)).toMatchObject({ ok: false });
  });

  it("appends the delivery route", () => {
    expect(deliveryAddress("https://h.example", "forge_b", "whk_1")).toBe("https://h.example/api/webhooks/forge_b/whk_1");
  });
});
