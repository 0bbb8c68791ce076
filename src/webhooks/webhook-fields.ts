import { checkName } from "../core/names.js";
import { invalid } from "../core/errors.js";
import { BOT_ID_RE } from "../bots/bot-id.js";
import { KEY_PROVIDER_RE, SECRET_NAME_RE } from "../credentials/credential-names.js";
import { bool, isObject, list, map, nullable, number, oneOf, text, varMap, word, type Parser } from "./field-parsers.js";
import { PROVIDER_ALIASES, PROVIDER_NAMES, PROVIDERS, providerNamed } from "./provider-names.js";
import { BOARD_MODES, REPLIER_ROLES, type BotRule, type Overlap, type ProviderName, type WebhookConfig } from "./webhook-config.js";

/** Fields a caller may set on create and change with PATCH. */
export type EditableField = Exclude<keyof WebhookConfig, "id" | "tenant_id" | "provider" | "token_last4" | "provisioned_by" | "created_at" | "updated_at">;
export type WebhookFields = Partial<Pick<WebhookConfig, EditableField>>;

/** Fields the service owns; naming one in a body is refused, never silently ignored. */
export const READ_ONLY_FIELDS = new Set([
  "id",
  "tenant_id",
  "provider",
  "token_last4",
  "provisioned_by",
  "created_at",
  "updated_at",
  "delivery_url",
  "previous_token_valid_until",
  "token",
  "token_hash",
  "token_fingerprint",
  "sealed_secret",
  "sealed_blob",
  "secret",
  "hmac_secret",
]);

const RECORD_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;
const SEGMENT = "[A-Za-z0-9_.-]+";
const FLAT_PATTERN = new RegExp(`^${SEGMENT}/(${SEGMENT}|\\*)$`);
const NESTED_PATTERN = new RegExp(`^${SEGMENT}(/${SEGMENT})*/(${SEGMENT}|\\*)$`);

const PROVIDER_REFUSED = `provider must be ${PROVIDERS.slice(0, -1).join(", ")} or ${PROVIDERS.at(-1)} (or ${PROVIDER_ALIASES.join(", ")})`;

/** Canonical provider name from a spec name, a forge's name or an alias (the table of provider-names.ts). */
export function parseProvider(v: unknown): ProviderName {
  const name = typeof v === "string" ? providerNamed(v.trim()) : undefined;
  if (!name) throw invalid("provider", PROVIDER_REFUSED);
  return name;
}

const botId = text(63, BOT_ID_RE, "must be a bot id ([a-z0-9][a-z0-9-]{0,62})");
const recordId = text(64, RECORD_ID_RE, "must be a record id");
const login = text(100, /^\S+$/, "must be a login without blanks");
const stripAt: Parser<string> = (v, f) => login(v, f).replace(/^@/, "");

/** `owner/repo`, `owner/*` or `*`; where groups nest (GitLab, and generic callers): `group/sub/repo`. */
function projectPattern(provider: ProviderName): Parser<string> {
  const nested = PROVIDER_NAMES[provider].nestedPaths;
  return (v, field) => {
    const s = text(500)(v, field);
    const ok = s === "*" || ((nested ? NESTED_PATTERN : FLAT_PATTERN).test(s) && s.split("/").every((seg) => seg !== "." && seg !== ".."));
    if (!ok) throw invalid(field, `${field} must be owner/repo, owner/* or *${nested ? " (groups may nest: group/sub/repo)" : ""}`);
    return s;
  };
}

const COMMAND_WHEN = ["always", "when_args_empty", "when_args_present"] as const;
const command = text(33, /^\/?[a-z][a-z0-9-]{0,31}$/, "must be a command name such as re-review");
const BOT_RULE_KEYS = ["bot_id", "events", "commands", "author_allowlist", "author_denylist", "author_scope", "label_filter", "launch_vars"];

const botRule: (v: unknown, field: string) => BotRule = (v, field) => {
  if (!isObject(v)) throw invalid(field, `${field} must be an object`);
  for (const k of Object.keys(v)) if (!BOT_RULE_KEYS.includes(k)) throw invalid(`${field}.${k}`, `${field}: unknown field ${k}`);
  if (v.bot_id === undefined) throw invalid(`${field}.bot_id`, `${field}.bot_id is required`);
  const commands = v.commands === undefined ? {} : map(command, oneOf(COMMAND_WHEN), 64)(v.commands, `${field}.commands`);
  return {
    bot_id: botId(v.bot_id, `${field}.bot_id`),
    events: v.events === undefined ? [] : list(word)(v.events, `${field}.events`),
    // Stored without the slash: the intake matches on the bare command name.
    commands: Object.fromEntries(Object.entries(commands).map(([k, w]) => [k.replace(/^\//, ""), w])) as BotRule["commands"],
    author_allowlist: v.author_allowlist === undefined ? [] : list(login)(v.author_allowlist, `${field}.author_allowlist`),
    author_denylist: v.author_denylist === undefined ? [] : list(login)(v.author_denylist, `${field}.author_denylist`),
    author_scope: v.author_scope === undefined ? "shared" : oneOf(["shared", "exclusive"] as const)(v.author_scope, `${field}.author_scope`),
    label_filter: v.label_filter === undefined ? [] : list(word)(v.label_filter, `${field}.label_filter`),
    launch_vars: v.launch_vars === undefined ? {} : varMap(v.launch_vars, `${field}.launch_vars`),
  };
};

const botRules: Parser<BotRule[]> = (v, field) => {
  if (!Array.isArray(v)) throw invalid(field, `${field} must be a list`);
  if (v.length > 64) throw invalid(field, `${field} may hold at most 64 rules`);
  return v.map((x, i) => botRule(x, `${field}.${i}`));
};

const httpUrl: Parser<string> = (v, field) => {
  const s = text(2000)(v, field);
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw invalid(field, `${field} must be an http(s) URL`);
  }
  if ((u.protocol !== "http:" && u.protocol !== "https:") || u.search || u.hash || u.username || u.password) {
    throw invalid(field, `${field} must be an http(s) URL without credentials, query or fragment`);
  }
  return s.replace(/\/+$/, "");
};

/** One parser per editable field of the spec's field table. */
function fieldParsers(provider: ProviderName): { [K in EditableField]-?: Parser<WebhookConfig[K]> } {
  return {
    name: (v, field) => {
      if (typeof v !== "string") throw invalid(field, `${field} must be a string`);
      return checkName(v, field);
    },
    enabled: bool,
    sign_mode: oneOf(["token", "hmac", "standard"] as const),
    rate: number({ min: 0, max: 10_000, exclusiveMin: true }),
    burst: number({ min: 1, max: 1_000_000, integer: true }),
    monthly_call_limit: number({ min: 0, max: 1_000_000_000_000, integer: true }),
    event_allowlist: list(word),
    label_allowlist: list(word),
    hold_labels: list(word),
    project_allowlist: list(projectPattern(provider)),
    author_allowlist: list(login),
    bot_ids: list((v, f) => (v === "*" ? "*" : botId(v, f)), 64),
    wildcard_bots: bool,
    default_bot_id: nullable(botId),
    bot_rules: nullable(botRules),
    launch_vars: varMap,
    operator_launch_vars: varMap,
    key_overrides: map(text(32, KEY_PROVIDER_RE, "must be a provider name such as anthropic"), recordId, 64),
    secret_overrides: map(text(64, SECRET_NAME_RE, "must be a secret name"), recordId, 256),
    review_request_logins: list(stripAt),
    review_on_sync: bool,
    overlap: oneOf<Overlap>(["", "allow", "skip", "supersede"]),
    retry_usage_window: nullable(bool),
    retry_max_attempts: nullable(number({ min: 0, max: 100, integer: true })),
    retry_max_wait: nullable(number({ min: 0, max: 7 * 86_400, integer: true })),
    retry_jitter: nullable(number({ min: 0, max: 1 })),
    forge_base_url: nullable(httpUrl),
    forge_token: nullable(recordId),
    authorized_repliers: list(login),
    min_replier_role: oneOf(REPLIER_ROLES),
    branch_improve_as_pr: bool,
    auto_implement_on_open: bool,
    acknowledge_commands: bool,
    explain_refusals: bool,
    board_mode: oneOf(BOARD_MODES),
    keep_payloads: bool,
    report_status: nullable(bool),
    post_questions: bool,
  };
}

/**
 * Parses the editable fields of a create or PATCH body. Read-only and unknown fields are
 * refused by name; `skip` names fields the caller has consumed already (provider on create).
 */
export function parseWebhookFields(body: unknown, provider: ProviderName, skip: readonly string[] = []): WebhookFields {
  if (!isObject(body)) throw invalid("body", "body must be a JSON object");
  const parsers = fieldParsers(provider) as Record<string, Parser<unknown>>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (skip.includes(key)) continue;
    if (READ_ONLY_FIELDS.has(key)) throw invalid(key, `${key} is read-only`);
    const parse = Object.hasOwn(parsers, key) ? parsers[key] : undefined;
    if (!parse) throw invalid(key, `unknown field ${key}`);
    out[key] = parse(value, key);
  }
  return out as WebhookFields;
}
