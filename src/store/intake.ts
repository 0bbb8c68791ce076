import { perSecond, takeToken } from "../core/token-bucket.js";
import { launchDelivery, type LaunchDeliveryOutcome } from "./admission.js";
import { Compiled, isPostgres } from "./compiled.js";
import { duplicateRow, findDeliveryByKey, insertDelivery, type NewDelivery } from "./deliveries.js";
import { insertRun, type RunRow } from "./runs.js";
import { addOrgRuns } from "./usage.js";
import type { Db } from "./db.js";
import type { WebhookRow } from "./webhooks.js";

export type CallAdmission = { kind: "admitted" } | { kind: "rate_limited"; retryAfterSeconds: number } | { kind: "quota_exceeded"; scope: "org" | "webhook" };
export type CallRefusal = Exclude<CallAdmission, { kind: "admitted" }>;

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

// SQLite, under its write lock: the bucket read, then written; each counter counted unless at
// its cap, read only when that counted nothing. An upsert-and-return per row, or one statement
// over both counter rows (an `in` list), cost twice as much per call.
const readBucket = new Compiled<{ tokens: number; updated_at: number }>(`select "tokens", "updated_at" from "webhook_buckets" where "webhook_id" = ?`);
const newBucket = new Compiled(`insert into "webhook_buckets" ("tokens", "updated_at", "webhook_id") values (?, ?, ?)`);
const putBucket = new Compiled(`update "webhook_buckets" set "tokens" = ?, "updated_at" = ? where "webhook_id" = ?`);
const readCalls = new Compiled<{ calls: number }>(`select "calls" from "webhook_call_counters" where "scope" = ? and "month" = ?`);
const newCount = new Compiled(`insert into "webhook_call_counters" ("scope", "month", "calls") values (?, ?, 1)`);
const countUnder = new Compiled<{ calls: number }>(
  `update "webhook_call_counters" set "calls" = "calls" + 1 where "scope" = ? and "month" = ? and "calls" < ? returning "calls"`,
);
const uncount = new Compiled(`update "webhook_call_counters" set "calls" = "calls" - 1 where "scope" = ? and "month" = ?`);

/**
 * PostgreSQL: the admission commits without waiting for its WAL flush (`synchronous_commit` off
 * for its own transaction alone), so the webhook's bucket and counter rows are not held locked
 * through an fsync: every delivery of a webhook passes them, and waiting there capped a webhook
 * at about one delivery per fsync. Nothing is acknowledged on this commit: a 2xx (and every
 * other answer that records the delivery) follows a synchronous commit of the delivery's row,
 * and that flush covers all WAL written before it, this admission included. A crash before
 * then loses at most the admission of a delivery that was not acknowledged.
 */
const admitOnServer = new Compiled<{ verdict: string }>(
  `select admit_webhook_call(?, ?, ?, ?, ?, ?, ?, ?) as "verdict", set_config('synchronous_commit', 'off', true) as "async_commit"`,
);

/**
 * The per-webhook bucket, then the monthly call quota (org and webhook), decided and written
 * atomically: one server-side function call on PostgreSQL; on SQLite, inside the caller's
 * transaction, each row read and then written. Rows are locked (PostgreSQL) or the write lock
 * is held (SQLite), so the outcome is exact across replicas; a call denied by the quota
 * consumes no quota.
 */
export async function admitWebhookCall(tx: Db, l: CallLimits): Promise<CallAdmission> {
  if (isPostgres(tx)) {
    const [row] = await admitOnServer.rows(tx, limitParams(l));
    return parseVerdict(row?.verdict);
  }
  const [bucket] = await readBucket.rows(tx, [l.webhookId]);
  const verdict = takeToken(bucket && { tokens: bucket.tokens, updatedAt: bucket.updated_at }, perSecond(l.rate, l.burst), l.now);
  if (!verdict.ok) return { kind: "rate_limited", retryAfterSeconds: verdict.retryAfterSeconds };
  await (bucket ? putBucket : newBucket).run(tx, [verdict.next.tokens, verdict.next.updatedAt, l.webhookId]);

  const orgScope = `org:${l.orgId}`;
  const hookScope = `webhook:${l.webhookId}`;
  if (!(await countCall(tx, orgScope, l.month, l.orgMonthlyCalls))) return { kind: "quota_exceeded", scope: "org" };
  if (!(await countCall(tx, hookScope, l.month, l.webhookMonthlyCalls))) {
    await uncount.run(tx, [orgScope, l.month]);
    return { kind: "quota_exceeded", scope: "webhook" };
  }
  return { kind: "admitted" };
}

/** SQLite: counts one call on `scope`'s month unless it is at `cap` (0: no cap); false when it is. */
async function countCall(tx: Db, scope: string, month: string, cap: number): Promise<boolean> {
  const under = cap > 0 ? cap : Number.MAX_SAFE_INTEGER;
  if ((await countUnder.rows(tx, [scope, month, under])).length > 0) return true;
  const [row] = await readCalls.rows(tx, [scope, month]);
  if (row) return false;
  await newCount.run(tx, [scope, month]);
  return true;
}

/** A delivery's writes: its row, and for a launching delivery the run it launches. */
export interface DeliveryWrite {
  row: NewDelivery;
  /**
   * The run, written with the row when the row's key is free and no limit or org status needs
   * the gate (the run's org is set from its team); `month` counts it.
   */
  launch?: { teamId: string; run: RunRow; month: string };
  /**
   * When another row holds the row's key (not a launch_error row, which the caller retries),
   * this delivery's own duplicate row is written under this id ({@link duplicateRow}) and
   * `taken` says `recorded`. Without a launch, the write is a replay's: a held key writes its
   * duplicate row, a free one writes nothing and answers `free`.
   */
  duplicateId?: string;
}

export type DeliveryWriteOutcome = LaunchDeliveryOutcome | { kind: "recorded" } | { kind: "free" };

/** The call's admission, and when admitted what was written (`recorded` for a row without launch). */
export interface DeliveryAnswer {
  admission: CallAdmission;
  outcome?: DeliveryWriteOutcome;
}

/** The admission that lets a call through (one object: it carries nothing per call). */
export const ADMITTED: CallAdmission = { kind: "admitted" };
const RECORDED: DeliveryWriteOutcome = { kind: "recorded" };
const FREE: DeliveryWriteOutcome = { kind: "free" };

/**
 * SQLite: a webhook call's writes as one transaction (the store runs it in a shared commit, on
 * a file's writer thread while the event loop is busy): the call's admission when `l` is
 * given, then when admitted the row, a replay's duplicate row, or the launch as PostgreSQL's
 * `launch_delivery` decides it (store/postgres/launch-delivery.sql; a batch's in deliver-webhook-calls.sql).
 * Under the write lock the key check sees every row written before, so the launch cannot lose
 * its key to a concurrent delivery; an error leaves nothing written, the admission included.
 */
export async function deliverOnSqlite(tx: Db, l: CallLimits | null, write: DeliveryWrite): Promise<DeliveryAnswer> {
  if (l) {
    const admission = await admitWebhookCall(tx, l);
    if (admission.kind !== "admitted") return { admission };
  }
  const { row, launch, duplicateId } = write;
  if (!launch && !duplicateId) {
    await insertDelivery(tx, row);
    return { admission: ADMITTED, outcome: RECORDED };
  }
  const taken = await duplicateIfHeld(tx, row, duplicateId);
  if (taken) return { admission: ADMITTED, outcome: taken };
  if (!launch) return { admission: ADMITTED, outcome: FREE };
  const [owner] = await ungatedOwner.rows(tx, [launch.teamId]);
  if (!owner) return { admission: ADMITTED, outcome: { kind: "gate" } };
  await insertRun(tx, Object.assign({}, launch.run, { org_id: owner.org_id }));
  await insertDelivery(tx, row);
  await addOrgRuns(tx, owner.org_id, launch.month, 1, launch.run.created_at);
  return { admission: ADMITTED, outcome: { kind: "launched", org_id: owner.org_id } };
}

/** The team's org when nothing needs the gate: the org active, and no limit of the team's or the org's set. */
const ungatedOwner = new Compiled<{ org_id: string }>(
  `select "orgs"."id" as "org_id" from "teams" inner join "orgs" on "orgs"."id" = "teams"."org_id"
   where "teams"."id" = ? and "orgs"."status" = 'active' and "teams"."max_concurrent_runs" <= 0 and "teams"."launch_rate_per_min" <= 0
     and "orgs"."monthly_cost_cap_micro" <= 0 and "orgs"."monthly_run_quota" <= 0`,
);

/**
 * `taken` with the holder of `row`'s key, and this delivery's duplicate row written under
 * `duplicateId` when given and the holder is not a launch_error row; undefined when the key is
 * free. SQLite runs it under the write lock; on PostgreSQL (a batch's retried replay) two
 * replays may both write their rows, each under its own key, as they should.
 */
async function duplicateIfHeld(db: Db, row: NewDelivery, duplicateId: string | undefined): Promise<LaunchDeliveryOutcome | undefined> {
  const held = await findDeliveryByKey(db, row.tenant_id, row.idempotency_key);
  if (!held) return undefined;
  if (!duplicateId || held.status === "launch_error") return { kind: "taken", row: held };
  await insertDelivery(db, duplicateRow(row, held, duplicateId));
  return { kind: "taken", row: held, recorded: true };
}

/**
 * PostgreSQL: a delivery's writes without an admission: the row, a replay's key check
 * ({@link duplicateIfHeld}), or `launch_delivery`, which leaves a duplicate's row to the caller
 * (`taken` without `recorded`). Calls go in batches ({@link PgDeliveryBatches}); this is the
 * way of a call whose batch could not write it.
 */
export async function writeOnPostgres(db: Db, write: DeliveryWrite): Promise<DeliveryWriteOutcome> {
  const { row, launch, duplicateId } = write;
  if (launch) return launchDelivery(db, launch.teamId, launch.run, row, launch.month, launch.run.created_at);
  if (!duplicateId) {
    await insertDelivery(db, row);
    return RECORDED;
  }
  return (await duplicateIfHeld(db, row, duplicateId)) ?? FREE;
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

/** Webhook calls this month, for an org or one webhook. */
export async function monthlyWebhookCalls(db: Db, scope: `org:${string}` | `webhook:${string}`, month: string): Promise<number> {
  const row = await db.selectFrom("webhook_call_counters").select("calls").where("scope", "=", scope).where("month", "=", month).executeTakeFirst();
  return row?.calls ?? 0;
}

/** What a delivery needs besides its config row: the owning team and org, read in the same query. */
export interface DeliveryOwner {
  orgId: string;
  orgStatus: "active" | "suspended" | "read-only";
  orgMonthlyWebhookCalls: number;
  teamStatus: "active" | "suspended" | "read-only";
}

const deliveryTarget = new Compiled<
  WebhookRow & { owner_org_id: string; owner_org_status: DeliveryOwner["orgStatus"]; owner_org_calls: number; owner_team_status: DeliveryOwner["teamStatus"] }
>(
  `select "webhooks".*, "orgs"."id" as "owner_org_id", "orgs"."status" as "owner_org_status", "orgs"."monthly_webhook_calls" as "owner_org_calls",
     "teams"."status" as "owner_team_status"
   from "webhooks" inner join "teams" on "teams"."id" = "webhooks"."tenant_id" inner join "orgs" on "orgs"."id" = "teams"."org_id"
   where "webhooks"."id" = ?`,
);

/** The webhook row with its team's org, or undefined for an unknown id: one indexed join. */
export async function loadDeliveryTarget(db: Db, webhookId: string) {
  const [row] = await deliveryTarget.rows(db, [webhookId]);
  if (!row) return undefined;
  const { owner_org_id, owner_org_status, owner_org_calls, owner_team_status, ...webhook } = row;
  const owner: DeliveryOwner = {
    orgId: owner_org_id,
    orgStatus: owner_org_status,
    orgMonthlyWebhookCalls: Number(owner_org_calls),
    teamStatus: owner_team_status,
  };
  return { webhook: webhook as WebhookRow, owner };
}

/** Forgets a deleted webhook's bucket; its monthly counter stays, it is part of the org's month. */
export async function deleteWebhookBucket(db: Db, webhookId: string): Promise<void> {
  await db.deleteFrom("webhook_buckets").where("webhook_id", "=", webhookId).execute();
}
