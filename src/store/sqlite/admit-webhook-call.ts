import { perSecond, takeToken } from "../../core/token-bucket.js";
import { Compiled } from "../compiled.js";
import type { Db } from "../db.js";
import { ADMITTED, type CallAdmission, type CallLimits } from "../delivery-ledger.js";

// Under the write lock: the bucket read, then written; each counter counted unless at its cap,
// read only when that counted nothing. An upsert-and-return per row cost twice as much.
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
 * The webhook's bucket ({@link takeToken}), then the org's and the webhook's monthly call quota,
 * inside the caller's transaction. The twin of store/postgres/admit-webhook-calls.sql; the
 * contract suite (store/delivery-ledger.test.ts) runs both on one table of cases. A call the
 * quota refuses consumes no quota.
 */
export async function admitOnSqlite(tx: Db, l: CallLimits): Promise<CallAdmission> {
  const [bucket] = await readBucket.rows(tx, [l.webhookId]);
  const verdict = takeToken(bucket && { tokens: bucket.tokens, updatedAt: bucket.updated_at }, perSecond(l.rate, l.burst), l.now);
  if (!verdict.ok) return { kind: "rate_limited", retryAfterSeconds: verdict.retryAfterSeconds };
  await (bucket ? putBucket : newBucket).run(tx, [verdict.next.tokens, verdict.next.updatedAt, l.webhookId]);

  const orgScope = `org:${l.orgId}`;
  if (!(await countCall(tx, orgScope, l.month, l.orgMonthlyCalls))) return { kind: "quota_exceeded", scope: "org" };
  if (!(await countCall(tx, `webhook:${l.webhookId}`, l.month, l.webhookMonthlyCalls))) {
    await uncount.run(tx, [orgScope, l.month]);
    return { kind: "quota_exceeded", scope: "webhook" };
  }
  return ADMITTED;
}

/** Counts one call on `scope`'s month unless it is at `cap` (0: no cap); false when it is. */
async function countCall(tx: Db, scope: string, month: string, cap: number): Promise<boolean> {
  const under = cap > 0 ? cap : Number.MAX_SAFE_INTEGER;
  if ((await countUnder.rows(tx, [scope, month, under])).length > 0) return true;
  const [row] = await readCalls.rows(tx, [scope, month]);
  if (row) return false;
  await newCount.run(tx, [scope, month]);
  return true;
}
