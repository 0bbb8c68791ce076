import type { NewDelivery } from "../store/deliveries.js";
import { NEW_DELIVERY } from "../store/schema/webhooks.js";
import { newRunRow } from "../admission/new-run-row.js";
import type { RunRow } from "../store/runs.js";

/** A filtered delivery row under its own key, every column named; `over` sets the rest. */
export function testDeliveryRow(id: string, over: Partial<NewDelivery> = {}): NewDelivery {
  return {
    ...NEW_DELIVERY,
    id,
    tenant_id: "team_t",
    webhook_id: "whk_t",
    provider: "forge_b",
    status: "filtered",
    idempotency_key: `row|${id}`,
    reason: "filtered",
    created_at: 1,
    updated_at: 1,
    ...over,
  };
}

/** A queued webhook run of `teamId`, its first attempt metered in `month`; the store sets its org. */
export function testRunRow(id: string, teamId: string, month = "2026-11"): RunRow {
  const request = { teamId, botId: "review-pr", vars: {}, source: "webhook" as const, actor: { userId: null, kind: "webhook" as const } };
  return newRunRow(request, id, "", 1, month);
}
