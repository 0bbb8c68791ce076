import { perSecond, takeToken } from "../core/token-bucket.js";
import type { Db } from "./store.js";

export type CallAdmission =
  | { kind: "admitted" }
  | { kind: "rate_limited"; retryAfterSeconds: number }
  | { kind: "quota_exceeded"; scope: "org" | "webhook" };

export interface CallLimits {
  webhookId: string;
  orgId: string;
  rate: number;
  burst: number;
  /** 0 means unlimited. */
  orgMonthlyCalls: number;
  /** 0 inherits the org's cap alone. */
  webhookMonthlyCalls: number;
  month: string;
  now: number;
}

/**
 * The per-webhook bucket, then the monthly call quota (org and webhook), decided and written
 * in the caller's transaction. Rows are locked (PostgreSQL) or the write lock is held (SQLite),
 * so the outcome is exact across replicas; a call denied by the quota consumes no quota.
 */
export async function admitWebhookCall(tx: Db, l: CallLimits): Promise<CallAdmission> {
  // Create-or-touch returning the row: one statement that makes the row exist, locks it
  // (PostgreSQL's DO UPDATE takes the row lock; SQLite holds the write lock) and reads it.
  const bucket = await tx
    .insertInto("webhook_buckets")
    .values({ webhook_id: l.webhookId, tokens: l.burst, updated_at: l.now })
    .onConflict((oc) => oc.column("webhook_id").doUpdateSet((eb) => ({ tokens: eb.ref("webhook_buckets.tokens") })))
    .returning(["tokens", "updated_at"])
    .executeTakeFirstOrThrow();
  const verdict = takeToken({ tokens: bucket.tokens, updatedAt: bucket.updated_at }, perSecond(l.rate, l.burst), l.now);
  if (!verdict.ok) return { kind: "rate_limited", retryAfterSeconds: verdict.retryAfterSeconds };
  await tx
    .updateTable("webhook_buckets")
    .set({ tokens: verdict.next.tokens, updated_at: verdict.next.updatedAt })
    .where("webhook_id", "=", l.webhookId)
    .execute();

  const orgScope = `org:${l.orgId}`;
  const hookScope = `webhook:${l.webhookId}`;
  // Scopes in a fixed order, so two transactions lock the two rows in the same order.
  const rows = await tx
    .insertInto("webhook_call_counters")
    .values([
      { scope: hookScope, month: l.month, calls: 0 },
      { scope: orgScope, month: l.month, calls: 0 },
    ].sort((a, b) => a.scope.localeCompare(b.scope)))
    .onConflict((oc) => oc.columns(["scope", "month"]).doUpdateSet((eb) => ({ calls: eb.ref("webhook_call_counters.calls") })))
    .returning(["scope", "calls"])
    .execute();
  const calls = (scope: string) => rows.find((r) => r.scope === scope)?.calls ?? 0;
  if (l.orgMonthlyCalls > 0 && calls(orgScope) >= l.orgMonthlyCalls) return { kind: "quota_exceeded", scope: "org" };
  if (l.webhookMonthlyCalls > 0 && calls(hookScope) >= l.webhookMonthlyCalls) return { kind: "quota_exceeded", scope: "webhook" };
  await tx
    .updateTable("webhook_call_counters")
    .set((eb) => ({ calls: eb("calls", "+", 1) }))
    .where("month", "=", l.month)
    .where("scope", "in", [orgScope, hookScope])
    .execute();
  return { kind: "admitted" };
}

/** Webhook calls this month, for an org or one webhook. */
export async function monthlyWebhookCalls(db: Db, scope: `org:${string}` | `webhook:${string}`, month: string): Promise<number> {
  const row = await db
    .selectFrom("webhook_call_counters")
    .select("calls")
    .where("scope", "=", scope)
    .where("month", "=", month)
    .executeTakeFirst();
  return row?.calls ?? 0;
}

/** What a delivery needs besides its config row: the owning team and org, read in the same query. */
export interface DeliveryOwner {
  orgId: string;
  orgStatus: "active" | "suspended" | "read-only";
  orgMonthlyWebhookCalls: number;
}

/** The webhook row with its team's org, or undefined for an unknown id: one indexed join. */
export async function loadDeliveryTarget(db: Db, webhookId: string) {
  const row = await db
    .selectFrom("webhooks")
    .innerJoin("teams", "teams.id", "webhooks.tenant_id")
    .innerJoin("orgs", "orgs.id", "teams.org_id")
    .selectAll("webhooks")
    .select(["orgs.id as owner_org_id", "orgs.status as owner_org_status", "orgs.monthly_webhook_calls as owner_org_calls"])
    .where("webhooks.id", "=", webhookId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { owner_org_id, owner_org_status, owner_org_calls, ...webhook } = row;
  const owner: DeliveryOwner = { orgId: owner_org_id, orgStatus: owner_org_status, orgMonthlyWebhookCalls: owner_org_calls };
  return { webhook, owner };
}

/** Forgets a deleted webhook's bucket; its monthly counter stays, it is part of the org's month. */
export async function deleteWebhookBucket(db: Db, webhookId: string): Promise<void> {
  await db.deleteFrom("webhook_buckets").where("webhook_id", "=", webhookId).execute();
}
