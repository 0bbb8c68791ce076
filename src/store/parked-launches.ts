import type { Selectable } from "kysely";
import type { ParkedLaunchesTable } from "./schema/intake.js";
import { dialect } from "./dialect.js";
import type { Db } from "./db.js";

export type ParkedLaunch = Selectable<ParkedLaunchesTable>;

/** The launch parked for a webhook, bot and subject; locked until the transaction ends (PostgreSQL). */
export async function findParked(tx: Db, webhookId: string, botId: string, subjectId: string): Promise<ParkedLaunch | undefined> {
  const q = tx.selectFrom("parked_launches").selectAll().where("webhook_id", "=", webhookId).where("bot_id", "=", botId).where("subject_id", "=", subjectId);
  return (dialect(tx).lockRows ? q.forUpdate() : q).executeTakeFirst();
}

/** A new parked launch; a concurrent one for the same webhook, bot and subject raises a unique violation. */
export async function insertParked(tx: Db, row: ParkedLaunch): Promise<void> {
  await tx.insertInto("parked_launches").values(row).execute();
}

/** Forgets a parked launch; false when it is gone already (launched, replaced or dropped). */
export async function deleteParked(db: Db, deliveryId: string): Promise<boolean> {
  const r = await db.deleteFrom("parked_launches").where("delivery_id", "=", deliveryId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** True when some parked launch is due and not held: a read, so an idle sweep takes no write turn. */
export async function anyDueParked(db: Db, now: number): Promise<boolean> {
  const row = await db
    .selectFrom("parked_launches")
    .select("delivery_id")
    .where("fire_at", "<=", now)
    .where("lease_until", "<=", now)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Takes up to `limit` parked launches that are due and not held, holding each for `leaseMs`:
 * a sweep on another replica skips them (on PostgreSQL the outer condition is checked again on
 * a row another sweep updated first), and one that stops leaves them to the next sweep.
 */
export async function claimDueParked(db: Db, now: number, leaseMs: number, limit: number): Promise<ParkedLaunch[]> {
  return db
    .updateTable("parked_launches")
    .set({ lease_until: now + leaseMs })
    .where("delivery_id", "in", (eb) =>
      eb.selectFrom("parked_launches").select("delivery_id").where("fire_at", "<=", now).where("lease_until", "<=", now).orderBy("fire_at").limit(limit),
    )
    .where("lease_until", "<=", now)
    .returningAll()
    .execute();
}

/** A parked launch the gate refused for now, due again at `fireAt`. */
export async function rearmParked(db: Db, deliveryId: string, attempts: number, fireAt: number): Promise<void> {
  await db.updateTable("parked_launches").set({ attempts, fire_at: fireAt, lease_until: 0 }).where("delivery_id", "=", deliveryId).execute();
}

/** Every launch parked for a subject (a pull request) of a webhook. */
export async function parkedForSubject(db: Db, webhookId: string, subjectId: string): Promise<ParkedLaunch[]> {
  return db.selectFrom("parked_launches").selectAll().where("webhook_id", "=", webhookId).where("subject_id", "=", subjectId).execute();
}
