import type { ColumnType } from "kysely";
import type { NewRowDefaults } from "./new-row.js";

/**
 * Webhook configs and their delivery log. Timestamps are epoch ms; booleans 0/1; lists and
 * maps are JSON text. The token hash, fingerprint and sealed secret sit in the row but are
 * split off before a config leaves src/webhooks.
 */
export interface WebhooksTable {
  id: string;
  tenant_id: string;
  provider: string;
  name: string;
  enabled: number;
  /** 1: report its runs' state on the forge; 0: do not; null: only for a provisioned repository. */
  report_status: number | null;
  sign_mode: string;
  rate: number;
  burst: number;
  monthly_call_limit: number;
  event_allowlist: string;
  label_allowlist: string;
  hold_labels: string;
  project_allowlist: string;
  author_allowlist: string;
  bot_ids: string;
  wildcard_bots: number;
  default_bot_id: string | null;
  /** JSON array, or null for a legacy single-bot config. */
  bot_rules: string | null;
  launch_vars: string;
  operator_launch_vars: string;
  key_overrides: string;
  secret_overrides: string;
  review_request_logins: string;
  review_on_sync: number;
  overlap: string;
  retry_usage_window: number | null;
  retry_max_attempts: number | null;
  retry_max_wait: number | null;
  retry_jitter: number | null;
  forge_base_url: string | null;
  forge_token: string | null;
  authorized_repliers: string;
  min_replier_role: string;
  branch_improve_as_pr: number;
  acknowledge_commands: number;
  explain_refusals: number;
  board_mode: string;
  /** 1: each delivery's request is kept, sealed (docs/deliveries.md). */
  keep_payloads: number;
  /** 1: a question its run asks is also posted on the pull request's thread (docs/runs.md). */
  post_questions: number;
  auto_implement_on_open: number;
  provisioned_by: string | null;
  /** Salted SHA-256 of the token, `salt$hash`. */
  token_hash: string;
  /** SHA-256 hex of the token. */
  token_fingerprint: string;
  token_last4: string;
  /** Token plaintext sealed under the webhook id (HMAC-capable configs only). */
  sealed_key_id: string | null;
  sealed_blob: string | null;
  /** The token a rotation with an overlap replaced: its salted hash and sealed plaintext, as above. */
  previous_token_hash: string | null;
  previous_sealed_key_id: string | null;
  previous_sealed_blob: string | null;
  /** Until when (epoch ms, exclusive) the previous token proves deliveries; null without one. */
  previous_valid_until: number | null;
  created_at: number;
  updated_at: number;
}

export type DeliveryStatus = "accepted" | "launched" | "duplicate" | "filtered" | "invalid" | "rate_limited" | "quota_exceeded" | "launch_error";

/** One row per delivery outcome; never holds the payload, only its hash. No FK: rows outlive their webhook. */
export interface WebhookDeliveriesTable {
  id: string;
  tenant_id: string;
  webhook_id: string;
  provider: string;
  status: DeliveryStatus;
  idempotency_key: string;
  payload_sha256: string | null;
  event_kind: string | null;
  event_action: string | null;
  project_path: string | null;
  subject_id: string | null;
  subject_sha: string | null;
  parent_subject_id: string | null;
  source_ip: string | null;
  bot_id: string | null;
  run_id: string | null;
  /** Human-readable filter or invalid reason. */
  reason: string | null;
  /** Stable denial token of the launch gate on launch_error rows. */
  denial_reason: string | null;
  /** Why the intake refused the delivery, on invalid rows: `bad_signature`, `bad_token`, `no_secret` or the decision's code. */
  refusal_code: string | null;
  /** The forge's own delivery id header. */
  forge_delivery_id: string | null;
  launched_at: number | null;
  failed_at: number | null;
  attempts: ColumnType<number, number | undefined, number>;
  created_at: number;
  updated_at: number;
}

/** A new delivery row's columns with their defaults ({@link NewRowDefaults}): nothing known of its body, not yet attempted. */
export const NEW_DELIVERY = {
  id: null,
  tenant_id: null,
  webhook_id: null,
  provider: null,
  status: null,
  idempotency_key: null,
  payload_sha256: null,
  event_kind: null,
  event_action: null,
  project_path: null,
  subject_id: null,
  subject_sha: null,
  parent_subject_id: null,
  source_ip: null,
  bot_id: null,
  run_id: null,
  reason: null,
  denial_reason: null,
  refusal_code: null,
  forge_delivery_id: null,
  launched_at: null,
  failed_at: null,
  attempts: 0,
  created_at: null,
  updated_at: null,
} satisfies NewRowDefaults<WebhookDeliveriesTable>;

export interface WebhookTables {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
