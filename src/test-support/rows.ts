import type { NewDelivery } from "../store/deliveries.js";
import type { RunRow } from "../store/runs.js";

/** A filtered delivery row under its own key, every column named; `over` sets the rest. */
export function testDeliveryRow(id: string, over: Partial<NewDelivery> = {}): NewDelivery {
  return {
    id,
    tenant_id: "team_t",
    webhook_id: "whk_t",
    provider: "forge_b",
    status: "filtered",
    idempotency_key: `row|${id}`,
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
    reason: "filtered",
    denial_reason: null,
    forge_delivery_id: null,
    launched_at: null,
    failed_at: null,
    attempts: 0,
    created_at: 1,
    updated_at: 1,
    ...over,
  };
}

/** A queued webhook run of `teamId`, its first attempt metered in `month`; the store sets its org. */
export function testRunRow(id: string, teamId: string, month = "2026-11"): RunRow {
  return {
    id,
    org_id: "",
    team_id: teamId,
    bot_id: "review-pr",
    status: "queued",
    vars: "{}",
    repo_url: null,
    repo_ref: null,
    project_path: null,
    connection_id: null,
    subject_id: null,
    parent_subject_id: null,
    webhook_id: null,
    delivery_id: null,
    source: "webhook",
    actor_user_id: null,
    actor_kind: "webhook",
    attempt: 1,
    metered_attempt: 1,
    metered: 1,
    metered_month: month,
    failure_code: null,
    failure_detail: null,
    cancel_requested: 0,
    claim_token: null,
    claimed_by: null,
    lease_expires_at: null,
    queued_at: 1,
    created_at: 1,
    updated_at: 1,
    started_at: null,
    finished_at: null,
  };
}
