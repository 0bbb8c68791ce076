import type { DeliveryRow } from "../store/deliveries.js";
import type { WebhookRow } from "../store/webhooks.js";
import type { WebhookConfig } from "./webhook-config.js";
import { configFromRow, secretsFromRow } from "./webhook-record.js";
import { acceptedPrevious } from "./webhook-token.js";
import { iso } from "../core/iso.js";

/** The URL a forge calls for a webhook: the service's base URL, then the delivery endpoint's path. */
export function deliveryUrl(baseUrl: string, provider: string, id: string): string {
  return `${baseUrl}/api/webhooks/${provider}/${id}`;
}

export type WebhookView = WebhookConfig & { delivery_url: string; previous_token_valid_until: string | null };

/**
 * The API shape of a config: every field of the table plus the URL a forge calls and, while a
 * rotation's overlap is open, until when (epoch ms) its previous token is still accepted.
 */
export function webhookView(c: WebhookConfig, baseUrl: string, previousTokenValidUntil: number | null = null): WebhookView {
  return { ...c, delivery_url: deliveryUrl(baseUrl, c.provider, c.id), previous_token_valid_until: iso(previousTokenValidUntil) };
}

/** The API shape of a stored config as of `now`: its previous token's end shows only while it is accepted. */
export function webhookViewOfRow(row: WebhookRow, baseUrl: string, now: number): WebhookView {
  return webhookView(configFromRow(row), baseUrl, acceptedPrevious(secretsFromRow(row), now)?.valid_until ?? null);
}

/** Every field of the spec's delivery record; the payload itself is never stored. */
export function deliveryView(d: DeliveryRow) {
  return {
    id: d.id,
    tenant_id: d.tenant_id,
    webhook_id: d.webhook_id,
    provider: d.provider,
    status: d.status,
    idempotency_key: d.idempotency_key,
    payload_sha256: d.payload_sha256,
    event_kind: d.event_kind,
    event_action: d.event_action,
    project_path: d.project_path,
    subject_id: d.subject_id,
    subject_sha: d.subject_sha,
    parent_subject_id: d.parent_subject_id,
    source_ip: d.source_ip,
    bot_id: d.bot_id,
    run_id: d.run_id,
    reason: d.reason,
    denial_reason: d.denial_reason,
    refusal_code: d.refusal_code,
    forge_delivery_id: d.forge_delivery_id,
    launched_at: iso(d.launched_at),
    failed_at: iso(d.failed_at),
    attempts: d.attempts,
    created_at: iso(d.created_at),
    updated_at: iso(d.updated_at),
  };
}
