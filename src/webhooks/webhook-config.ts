/**
 * The webhook config record of the spec's field table, as capabilities see it. The token's
 * hash, fingerprint and sealed HMAC secret are kept apart ({@link WebhookSecrets}) so a
 * config can be logged, listed and returned without them.
 */
export { PROVIDERS, type ProviderName, type SignMode } from "./provider-names.js";
import { PROVIDER_NAMES, type ProviderName, type SignMode } from "./provider-names.js";

export { BOARD_MODES, type BoardMode } from "../tenancy/board-mode.js";
import type { BoardMode } from "../tenancy/board-mode.js";

export type Overlap = "" | "allow" | "skip" | "supersede";
/** Repository roles, lowest first; forge-specific roles map onto these. */
export const REPLIER_ROLES = ["guest", "reporter", "developer", "maintainer", "owner"] as const;
export type ReplierRole = (typeof REPLIER_ROLES)[number];

/** One entry per co-enabled bot (spec "Bot rule"). */
export interface BotRule {
  bot_id: string;
  /** Normalised event kinds the bot claims; empty for a command-only bot. */
  events: string[];
  /** Command name → when the bot claims it (`always`, `when_args_empty`, `when_args_present`). */
  commands: Record<string, "always" | "when_args_empty" | "when_args_present">;
  author_allowlist: string[];
  author_denylist: string[];
  author_scope: "shared" | "exclusive";
  label_filter: string[];
  launch_vars: Record<string, string>;
}

export interface WebhookConfig {
  id: string;
  tenant_id: string;
  provider: ProviderName;
  name: string;
  enabled: boolean;
  token_last4: string;
  sign_mode: SignMode;
  rate: number;
  burst: number;
  monthly_call_limit: number;
  event_allowlist: string[];
  label_allowlist: string[];
  hold_labels: string[];
  project_allowlist: string[];
  author_allowlist: string[];
  bot_ids: string[];
  wildcard_bots: boolean;
  default_bot_id: string | null;
  /** Present on fan-out configs; null keeps the legacy single-bot behaviour and keys. */
  bot_rules: BotRule[] | null;
  launch_vars: Record<string, string>;
  operator_launch_vars: Record<string, string>;
  /** Provider name (e.g. anthropic, openai) → id of a stored API key of the same team/org. */
  key_overrides: Record<string, string>;
  /** Workflow-secret name → id of a stored secret. */
  secret_overrides: Record<string, string>;
  review_request_logins: string[];
  review_on_sync: boolean;
  overlap: Overlap;
  /** Retry policy for usage-window deaths; null means "inherit from lower layers". */
  retry_usage_window: boolean | null;
  retry_max_attempts: number | null;
  /** Seconds. */
  retry_max_wait: number | null;
  /** 0..1 fraction of the wait. */
  retry_jitter: number | null;
  forge_base_url: string | null;
  /** Id of a stored key (provider `forge`) used as fallback forge client and the bot's write identity. */
  forge_token: string | null;
  authorized_repliers: string[];
  min_replier_role: ReplierRole;
  branch_improve_as_pr: boolean;
  auto_implement_on_open: boolean;
  /** An accepted command is answered with an 👀 reaction on the forge (beyond the spec; default off). */
  acknowledge_commands: boolean;
  /** A refusal the commenter can act on (role, fork, unknown command) is explained in one reply (beyond the spec; default off). */
  explain_refusals: boolean;
  /** The issue lanes and the team's board: off, track (a card follows each launch), coordinate (the card is the work; beyond the spec's names). */
  board_mode: BoardMode;
  /** Each delivery's request (headers and body) is kept, sealed, for reading and sending again (beyond the spec; default off: keeping costs each delivery a seal and a write). */
  keep_payloads: boolean;
  /** Its runs' state is shown on the forge's commit (docs/forge-reporting.md); null: only when the webhook is provisioned. */
  report_status: boolean | null;
  /** A question its run asks is also posted on the pull request's (merge request's, issue's) thread (docs/runs.md; default off). */
  post_questions: boolean;
  provisioned_by: string | null;
  created_at: string;
  updated_at: string;
}

/** What proves a delivery: never returned, listed or logged. */
export interface WebhookSecrets {
  /** Salted SHA-256 of the token (`salt$hash`). */
  token_hash: string;
  /** SHA-256 hex of the token. */
  token_fingerprint: string;
  /** The plaintext sealed under the webhook id, for HMAC verification; null in pure token mode. */
  sealed_secret: { keyId: string; blob: string } | null;
}

/** The secret a rotation with an overlap replaced: it still proves deliveries while now < valid_until. */
export interface PreviousWebhookSecret {
  token_hash: string;
  /** Sealed under the webhook id as the current one is; null when the config sealed none. */
  sealed_secret: { keyId: string; blob: string } | null;
  /** Epoch ms. */
  valid_until: number;
}

/** A stored config's secrets: the current token's and, inside a rotation's overlap, the previous one's. */
export interface StoredWebhookSecrets extends WebhookSecrets {
  previous: PreviousWebhookSecret | null;
}

/** Default sign mode per provider: the first its deliveries can be proven by (forge_b and forge_c: hmac only). */
export function defaultSignMode(provider: ProviderName): SignMode {
  return PROVIDER_NAMES[provider].signModes[0];
}

export const WEBHOOK_TOKEN_PREFIX = "wh_";
