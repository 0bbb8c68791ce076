import { microToUsd } from "../core/money.js";
import type { AccessTokenRow, OrgRow, TeamRow, UserRow } from "../store/tenancy.js";
import { iso } from "../core/iso.js";

/** API shapes of tenancy records: snake_case fields, ISO timestamps, decimal USD. */

export type CredentialAudience = "all" | "none" | string[];

export function parseAudience(stored: string): CredentialAudience {
  if (stored === "all" || stored === "none") return stored;
  try {
    const v: unknown = JSON.parse(stored);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : "none";
  } catch {
    return "none";
  }
}

/** Whether the org's shared keys may be handed to the team's runs. */
export const sharesWith = (audience: CredentialAudience, teamId: string): boolean =>
  audience === "all" || (Array.isArray(audience) && audience.includes(teamId));

export const storeAudience = (a: CredentialAudience): string => (typeof a === "string" ? a : JSON.stringify(a));

export function orgView(o: OrgRow) {
  return {
    id: o.id,
    name: o.name,
    status: o.status,
    monthly_cost_cap_usd: microToUsd(o.monthly_cost_cap_micro),
    monthly_run_quota: o.monthly_run_quota,
    memory_quota_bytes: o.memory_quota_bytes,
    monthly_webhook_calls: o.monthly_webhook_calls,
    credential_audience: parseAudience(o.credential_audience),
    retry_usage_window: o.retry_usage_window === null ? null : o.retry_usage_window === 1,
    retry_max_attempts: o.retry_max_attempts,
    retry_max_wait: o.retry_max_wait,
    retry_jitter: o.retry_jitter,
    runner_pool: o.runner_pool,
    created_at: iso(o.created_at),
    updated_at: iso(o.updated_at),
  };
}

export function teamView(t: TeamRow) {
  return {
    id: t.id,
    org_id: t.org_id,
    name: t.name,
    status: t.status,
    max_concurrent_runs: t.max_concurrent_runs,
    launch_rate_per_min: t.launch_rate_per_min,
    board_mode: t.board_mode,
    created_at: iso(t.created_at),
    updated_at: iso(t.updated_at),
  };
}

export function userView(u: UserRow) {
  return { id: u.id, login: u.login, name: u.name, super_admin: u.super_admin === 1, active: u.deactivated_at === null, created_at: iso(u.created_at) };
}

export function tokenView(t: AccessTokenRow) {
  return {
    id: t.id,
    name: t.name,
    last4: t.last4,
    created_at: iso(t.created_at),
    last_used_at: iso(t.last_used_at),
    expires_at: iso(t.expires_at),
  };
}
