import { Compiled } from "../compiled.js";
import type { WebhookRow } from "../webhooks.js";
import type { Db } from "../db.js";

type Status = "active" | "suspended" | "read-only";

/** What a delivery needs besides its config row: the owning team and org, read in the same query. */
export interface DeliveryOwner {
  orgId: string;
  orgMonthlyWebhookCalls: number;
  /** The launch gate's own fields of the org and the team (0: the platform default). */
  org: { status: Status; monthlyCostCapMicro: number; monthlyRunQuota: number };
  team: { status: Status; maxConcurrentRuns: number; launchRatePerMin: number; boardMode: string };
}

interface OwnerColumns {
  o_id: string;
  o_status: Status;
  o_calls: number;
  o_cost_cap: number;
  o_run_quota: number;
  t_status: Status;
  t_max_concurrent: number;
  t_launch_rate: number;
  t_board: string;
  c_provider: string | null;
  c_auth: string | null;
  c_login: string | null;
  r_gate: string | null;
  r_auto_fix: number | null;
  r_review_after: number | null;
}

const deliveryTarget = new Compiled<WebhookRow & OwnerColumns>(
  `select "webhooks".*, "orgs"."id" as "o_id", "orgs"."status" as "o_status", "orgs"."monthly_webhook_calls" as "o_calls",
     "orgs"."monthly_cost_cap_micro" as "o_cost_cap", "orgs"."monthly_run_quota" as "o_run_quota",
     "teams"."status" as "t_status", "teams"."max_concurrent_runs" as "t_max_concurrent", "teams"."launch_rate_per_min" as "t_launch_rate",
     "teams"."board_mode" as "t_board",
     "forge_connections"."provider" as "c_provider",
     "forge_connections"."auth" as "c_auth", "forge_connections"."bot_login" as "c_login",
     "repo_bots"."gate_context" as "r_gate", "repo_bots"."auto_fix_on_gate_failure" as "r_auto_fix", "repo_bots"."review_after_gate" as "r_review_after"
   from "webhooks" inner join "teams" on "teams"."id" = "webhooks"."tenant_id" inner join "orgs" on "orgs"."id" = "teams"."org_id"
     left join "repo_bots" on "repo_bots"."id" = "webhooks"."provisioned_by"
     left join "forge_connections" on "forge_connections"."id" = "repo_bots"."connection_id"
   where "webhooks"."id" = ?`,
);

/**
 * The webhook row with its team's org and, for a provisioned one, its forge connection; undefined
 * for an unknown id: one indexed join. Hand-written: every delivery reads it first.
 */
export async function loadDeliveryTarget(db: Db, webhookId: string) {
  const [row] = await deliveryTarget.rows(db, [webhookId]);
  if (!row) return undefined;
  const {
    o_id,
    o_status,
    o_calls,
    o_cost_cap,
    o_run_quota,
    t_status,
    t_max_concurrent,
    t_launch_rate,
    t_board,
    c_provider,
    c_auth,
    c_login,
    r_gate,
    r_auto_fix,
    r_review_after,
    ...webhook
  } = row;
  const owner: DeliveryOwner = {
    orgId: o_id,
    orgMonthlyWebhookCalls: Number(o_calls),
    org: { status: o_status, monthlyCostCapMicro: Number(o_cost_cap), monthlyRunQuota: Number(o_run_quota) },
    team: { status: t_status, maxConcurrentRuns: Number(t_max_concurrent), launchRatePerMin: Number(t_launch_rate), boardMode: t_board },
  };
  const connection = c_provider !== null && c_auth !== null && c_login !== null ? { provider: c_provider, auth: c_auth, botLogin: c_login } : null;
  // A provisioned repository's CI gate, when it names one.
  const gate = r_gate ? { context: r_gate, autoFix: Number(r_auto_fix) === 1, reviewAfterGate: Number(r_review_after) === 1 } : undefined;
  return { webhook: webhook as WebhookRow, owner, connection, gate };
}
