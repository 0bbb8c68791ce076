import { Compiled } from "../compiled.js";
import type { Db } from "../db.js";
import { ADMITTED, type CallAdmission, type CallLimits } from "../delivery-ledger.js";

/**
 * The admission alone commits without waiting for its WAL flush (`synchronous_commit` off for its
 * own statement), so the webhook's bucket and counter rows are not held locked through an fsync.
 * Nothing is acknowledged on it: every answer that records the delivery follows a synchronous
 * commit, and that flush covers all WAL written before it.
 */
const admitAlone = new Compiled<{ verdict: string }>(
  `select admit_webhook_call(?, ?, ?, ?, ?, ?, ?, ?) as "verdict", set_config('synchronous_commit', 'off', true) as "async_commit"`,
);

/** A webhook call's admission alone (admit-webhook-calls.sql), for outcomes that write no delivery row of their own. */
export async function admitWebhookCall(db: Db, limits: CallLimits): Promise<CallAdmission> {
  const [row] = await admitAlone.rows(db, limitParams(limits));
  return parseVerdict(row?.verdict);
}

/** `admit_webhook_call`'s arguments, in order. */
export function limitParams(l: CallLimits): unknown[] {
  return [l.webhookId, l.orgId, l.rate, l.burst, l.orgMonthlyCalls, l.webhookMonthlyCalls, l.month, l.now];
}

/** `admit_webhook_call`'s text answer. */
export function parseVerdict(verdict: string | undefined): CallAdmission {
  if (verdict === "admitted") return ADMITTED;
  const [kind, detail] = (verdict ?? "").split(":");
  if (kind === "rate_limited") return { kind: "rate_limited", retryAfterSeconds: Number(detail) };
  if (kind === "quota_exceeded") return { kind: "quota_exceeded", scope: detail === "org" ? "org" : "webhook" };
  throw new Error(`admit_webhook_call answered ${JSON.stringify(verdict)}`);
}
