import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Sealer } from "../core/sealer.js";
import { rotatedSecretColumns } from "./rotated-secret-columns.js";
import { mintWebhookToken } from "./webhook-token.js";

const sealer = new Sealer("k1", { k1: randomBytes(32) });
const NOW = 1_700_000_000_000;

describe("rotatedSecretColumns", () => {
  it("writes the minted secrets and keeps the replaced ones as the previous until now + overlap", () => {
    const current = mintWebhookToken(sealer, "whk_a", true).secrets;
    const minted = mintWebhookToken(sealer, "whk_a", true).secrets;
    expect(rotatedSecretColumns(current, minted, 60_000, NOW)).toEqual({
      token_hash: minted.token_hash,
      token_fingerprint: minted.token_fingerprint,
      sealed_key_id: "k1",
      sealed_blob: minted.sealed_secret!.blob,
      previous_token_hash: current.token_hash,
      previous_sealed_key_id: "k1",
      previous_sealed_blob: current.sealed_secret!.blob,
      previous_valid_until: NOW + 60_000,
    });
  });

  it.each([
    ["an overlap of 0 clears the previous", true, 0],
    ["an unsealed config keeps a previous hash only", false, 60_000],
  ])("%s", (_label, seal, overlapMs) => {
    const current = mintWebhookToken(sealer, "whk_a", seal).secrets;
    const minted = mintWebhookToken(sealer, "whk_a", seal).secrets;
    const columns = rotatedSecretColumns(current, minted, overlapMs, NOW);
    expect(columns.token_hash).toBe(minted.token_hash);
    expect(columns.previous_token_hash).toBe(overlapMs > 0 ? current.token_hash : null);
    expect(columns.previous_valid_until).toBe(overlapMs > 0 ? NOW + overlapMs : null);
    expect([columns.previous_sealed_key_id, columns.previous_sealed_blob]).toEqual([null, null]);
  });
});
