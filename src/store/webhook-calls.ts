import type { Db } from "./db.js";

/** Webhook calls this month, for an org or one webhook. */
export async function monthlyWebhookCalls(db: Db, scope: `org:${string}` | `webhook:${string}`, month: string): Promise<number> {
  const row = await db.selectFrom("webhook_call_counters").select("calls").where("scope", "=", scope).where("month", "=", month).executeTakeFirst();
  return row?.calls ?? 0;
}

/** Forgets a deleted webhook's bucket; its monthly counter stays, it is part of the org's month. */
export async function deleteWebhookBucket(db: Db, webhookId: string): Promise<void> {
  await db.deleteFrom("webhook_buckets").where("webhook_id", "=", webhookId).execute();
}
