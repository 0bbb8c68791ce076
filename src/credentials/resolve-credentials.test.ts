import { describe, expect, it } from "vitest";
import type { ApiKeyRow, WorkflowSecretRow } from "../store/credentials.js";
import { platformKeysOf } from "./platform-keys.js";
import { resolveCredentials, type CredentialFacts, type WebhookOverrides } from "./resolve-credentials.js";

const TEAM = { id: "team_a", org_id: "org_1" };

const key = (id: string, provider: string, teamId: string | null, createdAt = 1): ApiKeyRow => ({
  id,
  org_id: "org_1",
  team_id: teamId,
  provider,
  name: id,
  sealed_key_id: "k1",
  sealed_blob: `blob-of-${id}`,
  last4: "",
  fingerprint: `fp-${id}`,
  created_by: null,
  created_at: createdAt,
});

const secret = (id: string, teamId = TEAM.id): WorkflowSecretRow => ({
  id,
  org_id: "org_1",
  team_id: teamId,
  name: `stored-${id}`,
  sealed_key_id: "k1",
  sealed_blob: `blob-of-${id}`,
  last4: "",
  fingerprint: `fp-${id}`,
  created_by: null,
  created_at: 1,
});

const hook = (keyOverrides: Record<string, string> = {}, secretOverrides: Record<string, string> = {}): WebhookOverrides => ({
  id: "whk_1",
  keyOverrides,
  secretOverrides,
});

const facts = (over: Partial<CredentialFacts>): CredentialFacts => ({
  team: TEAM,
  audience: "all",
  webhook: null,
  providers: ["anthropic"],
  teamKeys: [key("key_team", "anthropic", TEAM.id)],
  orgKeys: [key("key_pool", "anthropic", null)],
  teamSecrets: [],
  platformKeys: platformKeysOf({ anthropic: "sk-platform-value" }),
  ...over,
});

/** provider → "source:id" of the handed key, or the cause when the attempt cannot be given its credentials. */
function handed(f: CredentialFacts): Record<string, string> | string {
  const plan = resolveCredentials(f);
  if (plan.kind === "unavailable") return plan.cause;
  return Object.fromEntries(plan.keys.map((k) => [k.provider, `${k.source}/${k.tier}:${k.id}`]));
}

describe("resolveCredentials: the key an attempt is handed, per provider", () => {
  it.each<[string, Partial<CredentialFacts>, Record<string, string> | RegExp]>([
    [
      "the webhook's key_overrides entry first",
      { webhook: hook({ anthropic: "key_named" }), teamKeys: [key("key_team", "anthropic", TEAM.id), key("key_named", "anthropic", TEAM.id)] },
      { anthropic: "webhook/team:key_named" },
    ],
    ["an override naming a shared org key is charged as pool", { webhook: hook({ anthropic: "key_pool" }) }, { anthropic: "webhook/pool:key_pool" }],
    ["else the team's own key", {}, { anthropic: "team/team:key_team" }],
    [
      "the team's newest key of the provider",
      { teamKeys: [key("key_old", "anthropic", TEAM.id, 1), key("key_new", "anthropic", TEAM.id, 2)] },
      { anthropic: "team/team:key_new" },
    ],
    ["else an org-shared key the audience grants (all)", { teamKeys: [] }, { anthropic: "pool/pool:key_pool" }],
    ["else an org-shared key the audience grants (this team listed)", { teamKeys: [], audience: ["team_b", TEAM.id] }, { anthropic: "pool/pool:key_pool" }],
    [
      "an audience without the team skips the org key for the platform's",
      { teamKeys: [], audience: ["team_b"] },
      { anthropic: "platform/platform:platform:anthropic" },
    ],
    ["audience none: the platform key", { teamKeys: [], audience: "none" }, { anthropic: "platform/platform:platform:anthropic" }],
    ["else none", { teamKeys: [], orgKeys: [], platformKeys: [] }, {}],
    ["only the providers the bot calls", { providers: [] }, {}],
    [
      "a provider the webhook names is handed though the bot does not declare it",
      { providers: [], webhook: hook({ openai: "key_oa" }), teamKeys: [key("key_oa", "openai", TEAM.id)] },
      { openai: "webhook/team:key_oa" },
    ],
    [
      "each provider resolves on its own",
      { providers: ["anthropic", "openai"], webhook: hook({ openai: "key_oa" }), teamKeys: [key("key_oa", "openai", TEAM.id)] },
      { anthropic: "pool/pool:key_pool", openai: "webhook/team:key_oa" },
    ],
    [
      "a deleted override fails the attempt, not a broader key",
      { webhook: hook({ anthropic: "key_gone" }) },
      /key key_gone named for anthropic by webhook whk_1 no longer exists/,
    ],
    [
      "an override of another team's key fails",
      { webhook: hook({ anthropic: "key_b" }), teamKeys: [key("key_b", "anthropic", "team_b")] },
      /key key_b named for anthropic .* no longer exists/,
    ],
    [
      "an override of an org key no longer shared fails",
      { webhook: hook({ anthropic: "key_pool" }), audience: ["team_b"] },
      /org key key_pool .* no longer shared/,
    ],
    [
      "an override of a key of another provider fails",
      { webhook: hook({ anthropic: "key_oa" }), teamKeys: [key("key_oa", "openai", TEAM.id)] },
      /is a openai key/,
    ],
    ["a run whose webhook is gone fails", { webhook: { id: "whk_9", deleted: true } }, /webhook whk_9 that launched the run no longer exists/],
  ])("%s", (_label, over, want) => {
    const got = handed(facts(over));
    if (want instanceof RegExp) expect(got).toMatch(want);
    else expect(got).toEqual(want);
  });

  it("hands the webhook's secrets under their override names, sealed until spawn", () => {
    const plan = resolveCredentials(facts({ webhook: hook({}, { NPM_TOKEN: "sec_1" }), teamSecrets: [secret("sec_1"), secret("sec_2")] }));
    expect(plan).toMatchObject({
      kind: "handed",
      secrets: [{ name: "NPM_TOKEN", id: "sec_1", value: { sealed: { keyId: "k1", blob: "blob-of-sec_1" }, context: "sec_1" } }],
    });
  });

  it.each([
    ["a deleted secret", [] as WorkflowSecretRow[]],
    ["another team's secret", [secret("sec_1", "team_b")]],
  ])("fails an attempt whose named secret is %s", (_label, teamSecrets) => {
    const plan = resolveCredentials(facts({ webhook: hook({}, { NPM_TOKEN: "sec_1" }), teamSecrets }));
    expect(plan).toEqual({ kind: "unavailable", cause: "secret sec_1 named NPM_TOKEN by webhook whk_1 no longer exists for this team" });
  });

  it("keeps stored values sealed and the platform's in configuration", () => {
    const plan = resolveCredentials(facts({ providers: ["anthropic", "openai"], platformKeys: platformKeysOf({ openai: "sk-platform-openai-0123456789" }) }));
    if (plan.kind !== "handed") throw new Error(plan.cause);
    expect(plan.keys.map((k) => k.value)).toEqual([
      { sealed: { keyId: "k1", blob: "blob-of-key_team" }, context: "key_team" },
      { plain: "sk-platform-openai-0123456789" },
    ]);
    expect(plan.keys[1]).toMatchObject({ id: "platform:openai", name: "SERVICE_PLATFORM_KEY_OPENAI", last4: "6789" });
  });
});
