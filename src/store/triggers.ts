import type { Insertable, Selectable, Updateable } from "kysely";
import type { Db } from "./db.js";
import type { TriggerSubscriptionsTable } from "./schema/launch-surfaces.js";

export type TriggerSubscriptionRow = Selectable<TriggerSubscriptionsTable>;

export async function insertSubscription(db: Db, row: Insertable<TriggerSubscriptionsTable>): Promise<void> {
  await db.insertInto("trigger_subscriptions").values(row).execute();
}

export async function updateSubscription(db: Db, id: string, patch: Updateable<TriggerSubscriptionsTable>): Promise<void> {
  await db.updateTable("trigger_subscriptions").set(patch).where("id", "=", id).execute();
}

export async function deleteSubscription(db: Db, id: string): Promise<void> {
  await db.deleteFrom("trigger_subscriptions").where("id", "=", id).execute();
}

export function findSubscription(db: Db, id: string): Promise<TriggerSubscriptionRow | undefined> {
  return db.selectFrom("trigger_subscriptions").selectAll().where("id", "=", id).executeTakeFirst();
}

export function listTeamSubscriptions(db: Db, teamId: string): Promise<TriggerSubscriptionRow[]> {
  return db.selectFrom("trigger_subscriptions").selectAll().where("team_id", "=", teamId).orderBy("name").execute();
}

/** The team's enabled subscriptions to `event`. */
export function subscriptionsTo(db: Db, teamId: string, event: string): Promise<TriggerSubscriptionRow[]> {
  return db
    .selectFrom("trigger_subscriptions")
    .selectAll()
    .where("team_id", "=", teamId)
    .where("event", "=", event)
    .where("enabled", "=", 1)
    .orderBy("id")
    .execute();
}

/** The run a subscription launched for an emit's idempotency key, if any. */
export async function findTriggerLaunch(db: Db, teamId: string, key: string, subscriptionId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("trigger_launches")
    .select("run_id")
    .where("team_id", "=", teamId)
    .where("idempotency_key", "=", key)
    .where("subscription_id", "=", subscriptionId)
    .executeTakeFirst();
  return row?.run_id;
}

/**
 * Records a subscription's launch under an emit's key; false when a launch of the subscription
 * holds the key already (on PostgreSQL, one committed meanwhile: a concurrent insert waits for it).
 */
export async function insertTriggerLaunch(db: Db, teamId: string, key: string, subscriptionId: string, runId: string, now: number): Promise<boolean> {
  const inserted = await db
    .insertInto("trigger_launches")
    .values({ team_id: teamId, idempotency_key: key, subscription_id: subscriptionId, run_id: runId, created_at: now })
    .onConflict((oc) => oc.columns(["team_id", "idempotency_key", "subscription_id"]).doNothing())
    .returning("run_id")
    .executeTakeFirst();
  return inserted !== undefined;
}
