import type { WebhookRow } from "../store/webhooks.js";
import type { WebhooksTable } from "../store/schema/webhooks.js";
import type {
  BoardMode,
  BotRule,
  Overlap,
  ProviderName,
  ReplierRole,
  SignMode,
  StoredWebhookSecrets,
  WebhookConfig,
  WebhookSecrets,
} from "./webhook-config.js";
import type { EditableConfig } from "./webhook-rules.js";
import { iso } from "../core/iso.js";

const parse = <T>(text: string): T => JSON.parse(text) as T;
const bit = (b: boolean) => (b ? 1 : 0);

/** The config of a stored row; its token hash, fingerprint and sealed secret are left behind. */
export function configFromRow(r: WebhookRow): WebhookConfig {
  return {
    id: r.id,
    tenant_id: r.tenant_id,
    provider: r.provider as ProviderName,
    name: r.name,
    enabled: r.enabled === 1,
    token_last4: r.token_last4,
    sign_mode: r.sign_mode as SignMode,
    rate: r.rate,
    burst: r.burst,
    monthly_call_limit: r.monthly_call_limit,
    event_allowlist: parse(r.event_allowlist),
    label_allowlist: parse(r.label_allowlist),
    hold_labels: parse(r.hold_labels),
    project_allowlist: parse(r.project_allowlist),
    author_allowlist: parse(r.author_allowlist),
    bot_ids: parse(r.bot_ids),
    wildcard_bots: r.wildcard_bots === 1,
    default_bot_id: r.default_bot_id,
    bot_rules: r.bot_rules === null ? null : parse<BotRule[]>(r.bot_rules),
    launch_vars: parse(r.launch_vars),
    operator_launch_vars: parse(r.operator_launch_vars),
    key_overrides: parse(r.key_overrides),
    secret_overrides: parse(r.secret_overrides),
    review_request_logins: parse(r.review_request_logins),
    review_on_sync: r.review_on_sync === 1,
    overlap: r.overlap as Overlap,
    retry_usage_window: r.retry_usage_window === null ? null : r.retry_usage_window === 1,
    retry_max_attempts: r.retry_max_attempts,
    retry_max_wait: r.retry_max_wait,
    retry_jitter: r.retry_jitter,
    forge_base_url: r.forge_base_url,
    forge_token: r.forge_token,
    authorized_repliers: parse(r.authorized_repliers),
    min_replier_role: r.min_replier_role as ReplierRole,
    branch_improve_as_pr: r.branch_improve_as_pr === 1,
    auto_implement_on_open: r.auto_implement_on_open === 1,
    acknowledge_commands: r.acknowledge_commands === 1,
    explain_refusals: r.explain_refusals === 1,
    board_mode: r.board_mode as BoardMode,
    keep_payloads: r.keep_payloads === 1,
    report_status: r.report_status === null ? null : r.report_status === 1,
    post_questions: r.post_questions === 1,
    provisioned_by: r.provisioned_by,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

const sealed = (keyId: string | null, blob: string | null) => (keyId !== null && blob !== null ? { keyId, blob } : null);

export function secretsFromRow(r: WebhookRow): StoredWebhookSecrets {
  return {
    token_hash: r.token_hash,
    token_fingerprint: r.token_fingerprint,
    sealed_secret: sealed(r.sealed_key_id, r.sealed_blob),
    previous:
      r.previous_token_hash !== null && r.previous_valid_until !== null
        ? {
            token_hash: r.previous_token_hash,
            sealed_secret: sealed(r.previous_sealed_key_id, r.previous_sealed_blob),
            valid_until: r.previous_valid_until,
          }
        : null,
  };
}

type EditableColumns = Pick<
  WebhooksTable,
  Exclude<
    keyof WebhooksTable,
    | "id"
    | "tenant_id"
    | "provider"
    | "provisioned_by"
    | "token_hash"
    | "token_fingerprint"
    | "token_last4"
    | "sealed_key_id"
    | "sealed_blob"
    | "previous_token_hash"
    | "previous_sealed_key_id"
    | "previous_sealed_blob"
    | "previous_valid_until"
    | "created_at"
    | "updated_at"
  >
>;

/** Columns of the editable fields (a whole config or a partial patch); names match one to one. */
export function columnsOf(c: Partial<EditableConfig>): Partial<EditableColumns> {
  const out: Record<string, string | number | null> = {};
  for (const [key, value] of Object.entries(c) as [string, unknown][]) {
    if (value === undefined) continue;
    if (typeof value === "boolean") out[key] = bit(value);
    else if (value !== null && typeof value === "object") out[key] = JSON.stringify(value);
    else out[key] = value as string | number | null;
  }
  return out as Partial<EditableColumns>;
}

export function secretColumns(s: WebhookSecrets) {
  return {
    token_hash: s.token_hash,
    token_fingerprint: s.token_fingerprint,
    sealed_key_id: s.sealed_secret?.keyId ?? null,
    sealed_blob: s.sealed_secret?.blob ?? null,
  };
}
