import { describe, expect, it } from "vitest";
import { ForgeFailure } from "./shared/forge-errors.js";
import { ForgeNetwork } from "./shared/forge-network.js";
import { forgeApps, hasApps, openForgeApp } from "./open-app.js";

const APP = { appId: 1, privateKey: "not a key", installationId: 2 };

describe("a forge's Apps", () => {
  it("are GitHub's alone, whose installation tokens are replaced five minutes before their hour ends", () => {
    expect([hasApps("forge_a"), hasApps("forge_b"), hasApps("forge_c")]).toEqual([false, true, false]);
    expect(forgeApps("forge_b")?.refreshBeforeMs).toBe(5 * 60_000);
  });

  it("open on GitHub, and are refused on a forge without them before any call", () => {
    expect(Object.keys(openForgeApp(new ForgeNetwork(), "forge_b", null, APP)).sort()).toEqual([
      "identity",
      "installationToken",
      "repositoryToken",
      "securityTokens",
    ]);
    const refused = (() => {
      try {
        openForgeApp(new ForgeNetwork(), "forge_a", null, APP);
      } catch (err) {
        return err;
      }
    })();
    expect(refused).toBeInstanceOf(ForgeFailure);
    expect((refused as ForgeFailure).error).toMatchObject({ code: "forge_rejected", reason: "forge_a (gitlab) has no Apps to connect as" });
  });
});
