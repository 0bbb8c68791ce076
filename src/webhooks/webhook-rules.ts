import { invalid } from "../core/errors.js";
import { PROVIDER_NAMES, type SignMode } from "./provider-names.js";
import { defaultSignMode, type ProviderName, type WebhookConfig } from "./webhook-config.js";
import type { EditableField } from "./webhook-fields.js";

export type EditableConfig = Pick<WebhookConfig, EditableField>;

/** The spec's defaults for every editable field of a new config. */
export function webhookDefaults(provider: ProviderName): EditableConfig {
  return {
    name: provider,
    enabled: true,
    sign_mode: defaultSignMode(provider),
    rate: 1.0,
    burst: 10,
    monthly_call_limit: 0,
    event_allowlist: [],
    label_allowlist: [],
    hold_labels: [],
    project_allowlist: [],
    author_allowlist: [],
    bot_ids: [],
    wildcard_bots: false,
    default_bot_id: null,
    bot_rules: null,
    launch_vars: {},
    operator_launch_vars: {},
    key_overrides: {},
    secret_overrides: {},
    review_request_logins: [],
    review_on_sync: false,
    overlap: "",
    retry_usage_window: null,
    retry_max_attempts: null,
    retry_max_wait: null,
    retry_jitter: null,
    forge_base_url: null,
    forge_token: null,
    authorized_repliers: [],
    min_replier_role: "developer",
    branch_improve_as_pr: false,
    auto_implement_on_open: false,
    acknowledge_commands: false,
    explain_refusals: false,
    board_mode: "off",
    keep_payloads: false,
    report_status: null,
    post_questions: false,
  };
}

/** True when the config uses the `["*"]` bot scope. */
export const usesWildcardBots = (c: Pick<WebhookConfig, "bot_ids">) => c.bot_ids.includes("*");

/**
 * Rules that span fields, checked on the config as it would be stored. References to other
 * records (bots, keys, secrets) are the service's to check against the store.
 */
export function checkWebhookRules(provider: ProviderName, c: EditableConfig): void {
  checkSignMode(provider, c.sign_mode);
  if (usesWildcardBots(c)) {
    if (c.bot_ids.length !== 1) throw invalid("bot_ids", `bot_ids: "*" cannot be combined with named bots`);
    if (!c.wildcard_bots) throw invalid("bot_ids", `bot_ids ["*"] requires wildcard_bots: true`);
  }
  // An empty bot_ids scopes no bot: a default or a rule naming one could never launch.
  const scoped = (id: string) => usesWildcardBots(c) || c.bot_ids.includes(id);
  if (c.default_bot_id !== null && !scoped(c.default_bot_id)) {
    throw invalid("default_bot_id", `default_bot_id ${c.default_bot_id} is not in bot_ids`);
  }
  const seen = new Set<string>();
  (c.bot_rules ?? []).forEach((rule, i) => {
    if (seen.has(rule.bot_id)) throw invalid(`bot_rules.${i}.bot_id`, `bot_rules: ${rule.bot_id} has more than one rule`);
    seen.add(rule.bot_id);
    if (!scoped(rule.bot_id)) throw invalid(`bot_rules.${i}.bot_id`, `bot_rules: ${rule.bot_id} is not in bot_ids`);
  });
}

const MODE_PROVES: Record<SignMode, string> = {
  token: "echoes the token",
  hmac: "signs the body (HMAC)",
  standard: "signs by Standard Webhooks",
};

/** A sign mode the provider's deliveries can be proven by (the table of provider names): forge_b and forge_c sign bodies, forge_a echoes the token. */
function checkSignMode(provider: ProviderName, signMode: EditableConfig["sign_mode"]): void {
  const modes: readonly SignMode[] = PROVIDER_NAMES[provider].signModes;
  if (!modes.includes(signMode))
    throw invalid("sign_mode", `${provider} ${modes.map((m) => MODE_PROVES[m]).join(" or ")} only; sign_mode must be ${modes.join(" or ")}`);
}

/** Bot ids a config names, wildcard left out: each must be a known bot. */
export function namedBotIds(c: Pick<WebhookConfig, "bot_ids" | "default_bot_id" | "bot_rules">): { id: string; field: string }[] {
  const out: { id: string; field: string }[] = [];
  for (const [i, id] of c.bot_ids.entries()) if (id !== "*") out.push({ id, field: `bot_ids.${i}` });
  if (c.default_bot_id !== null) out.push({ id: c.default_bot_id, field: "default_bot_id" });
  for (const [i, r] of (c.bot_rules ?? []).entries()) out.push({ id: r.bot_id, field: `bot_rules.${i}.bot_id` });
  return out;
}

/**
 * Whether the token plaintext is sealed beside its hash: hmac configs need it to verify
 * signatures, and generic configs keep it too so they can switch to hmac without a rotate.
 */
export const sealsSecret = (provider: ProviderName, signMode: WebhookConfig["sign_mode"]) => signMode === "hmac" || provider === "generic";
