import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SealError, Sealer } from "../core/sealer.js";
import { sha256Hex } from "../core/secrets.js";
import { acceptedPrevious, matchWebhookToken, mintWebhookToken, openWebhookSecret, tokenMatches } from "./webhook-token.js";

const sealer = new Sealer("k1", { k1: randomBytes(32) });

describe("webhook tokens", () => {
  it("mints wh_ + 32 random bytes and keeps only hash, fingerprint and last 4", () => {
    const m = mintWebhookToken(sealer, "whk_a", false);
    expect(m.token).toMatch(/^wh_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(m.token.slice(3), "base64url")).toHaveLength(32);
    expect(m.last4).toBe(m.token.slice(-4));
    expect(m.secrets.token_fingerprint).toBe(sha256Hex(m.token));
    expect(m.secrets.token_hash).not.toContain(m.token);
    expect(m.secrets.sealed_secret).toBeNull();
    expect(openWebhookSecret(sealer, "whk_a", m.secrets)).toBeUndefined();
  });

  it("verifies the presented token and nothing else", () => {
    const m = mintWebhookToken(sealer, "whk_a", false);
    expect(tokenMatches(m.secrets, m.token)).toBe(true);
    expect(tokenMatches(m.secrets, `${m.token}x`)).toBe(false);
    expect(tokenMatches(m.secrets, m.token.slice(0, -1))).toBe(false);
    expect(tokenMatches(m.secrets, mintWebhookToken(sealer, "whk_a", false).token)).toBe(false);
    expect(tokenMatches(m.secrets, "")).toBe(false);
  });

  it("seals the plaintext bound to the webhook id", () => {
    const m = mintWebhookToken(sealer, "whk_a", true);
    expect(m.secrets.sealed_secret?.keyId).toBe("k1");
    expect(m.secrets.sealed_secret?.blob).not.toContain(m.token.slice(3));
    expect(openWebhookSecret(sealer, "whk_a", m.secrets)).toBe(m.token);
  });

  it("refuses to open under another webhook's id", () => {
    const m = mintWebhookToken(sealer, "whk_a", true);
    expect(() => openWebhookSecret(sealer, "whk_b", m.secrets)).toThrow(SealError);
  });

  it("refuses a truncated or altered tag", () => {
    const m = mintWebhookToken(sealer, "whk_a", true);
    const raw = Buffer.from(m.secrets.sealed_secret!.blob, "base64url");
    const truncated = { ...m.secrets, sealed_secret: { keyId: "k1", blob: raw.subarray(0, raw.length - 1).toString("base64url") } };
    expect(() => openWebhookSecret(sealer, "whk_a", truncated)).toThrow(SealError);
    const flipped = Buffer.from(raw);
    flipped[flipped.length - 1]! ^= 1;
    const altered = { ...m.secrets, sealed_secret: { keyId: "k1", blob: flipped.toString("base64url") } };
    expect(() => openWebhookSecret(sealer, "whk_a", altered)).toThrow(SealError);
  });

  it("opens under a retired key named beside the value", () => {
    const old = randomBytes(32);
    const before = mintWebhookToken(new Sealer("old", { old }), "whk_a", true);
    const rotated = new Sealer("new", { new: randomBytes(32), old });
    expect(openWebhookSecret(rotated, "whk_a", before.secrets)).toBe(before.token);
  });

  it("matches the current token, else the previous one only while now < valid_until", () => {
    const current = mintWebhookToken(sealer, "whk_a", false);
    const replaced = mintWebhookToken(sealer, "whk_a", false);
    const stranger = mintWebhookToken(sealer, "whk_a", false);
    const secrets = { ...current.secrets, previous: { token_hash: replaced.secrets.token_hash, sealed_secret: null, valid_until: 1000 } };
    const cases: [string, number, ReturnType<typeof matchWebhookToken>][] = [
      [current.token, 0, "current"],
      [current.token, 5000, "current"],
      [replaced.token, 999, "previous"],
      [replaced.token, 1000, undefined],
      [stranger.token, 0, undefined],
    ];
    for (const [token, now, want] of cases)
      expect(
        matchWebhookToken(secrets, token, now),
        `${token === current.token ? "current" : token === replaced.token ? "previous" : "stranger"} at ${now}`,
      ).toBe(want);
    expect(matchWebhookToken({ ...secrets, previous: null }, replaced.token, 0)).toBeUndefined();
    expect(acceptedPrevious(secrets, 999)).toBe(secrets.previous);
    expect(acceptedPrevious(secrets, 1000)).toBeUndefined();
  });
});
