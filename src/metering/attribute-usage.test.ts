import { describe, expect, it } from "vitest";
import { attributeUsage, type Attribution, type HandedKeyFacts } from "./attribute-usage.js";
import type { UsageReport } from "./usage-report.js";

const TEAM_KEY: HandedKeyFacts = { provider: "anthropic", fingerprint: "fp-team", tier: "team" };
const POOL_KEY: HandedKeyFacts = { provider: "openai", fingerprint: "fp-pool", tier: "pool" };

type Reported = Pick<UsageReport, "fingerprint" | "provider" | "tier">;
const said = (provider: string | null, fingerprint: string | null = null, tier: UsageReport["tier"] = null): Reported => ({ provider, fingerprint, tier });

describe("attributeUsage: the ledger follows the key the service handed", () => {
  it.each<[string, Reported, HandedKeyFacts[], Attribution | null]>([
    ["the handed key of the reported provider", said("anthropic"), [TEAM_KEY, POOL_KEY], { fingerprint: "fp-team", provider: "anthropic", tier: "team" }],
    [
      "whatever fingerprint and tier the bot claims",
      said("openai", "fp-other-team", "team"),
      [TEAM_KEY, POOL_KEY],
      { fingerprint: "fp-pool", provider: "openai", tier: "pool" },
    ],
    [
      "no provider: the handed key with the reported fingerprint",
      said(null, "fp-pool"),
      [TEAM_KEY, POOL_KEY],
      { fingerprint: "fp-pool", provider: "openai", tier: "pool" },
    ],
    ["no provider: the only key handed", said(null, "fp-bot", "platform"), [TEAM_KEY], { fingerprint: "fp-team", provider: "anthropic", tier: "team" }],
    ["no provider among several handed keys: nobody", said(null, "fp-bot", "platform"), [TEAM_KEY, POOL_KEY], null],
    [
      "a provider the service handed nothing for: the bot's own key",
      said("example", "fp-bot", "platform"),
      [TEAM_KEY],
      { fingerprint: "fp-bot", provider: "example", tier: "platform" },
    ],
    ["nothing handed: the bot's own key", said("example", "fp-bot", "team"), [], { fingerprint: "fp-bot", provider: "example", tier: "team" }],
    ["nothing handed, no provider: the bot's own key", said(null, "fp-bot", "team"), [], { fingerprint: "fp-bot", provider: "", tier: "team" }],
    ["nothing handed and no tier: nobody", said("example", "fp-bot"), [], null],
    ["nothing handed and no fingerprint: nobody", said("example", null, "team"), [], null],
  ])("%s", (_label, report, handed, want) => {
    expect(attributeUsage(report, handed)).toEqual(want);
  });
});
