import type { Db } from "./db.js";

/** One pull request's gate, on one webhook. */
export interface GateStreakKey {
  webhookId: string;
  subjectId: string;
  gate: string;
}

/** Automatic fixes launched in a row on the pull request since its gate last passed. */
export async function readGateStreak(db: Db, k: GateStreakKey): Promise<number> {
  const row = await db
    .selectFrom("gate_fix_streaks")
    .select("fixes")
    .where("webhook_id", "=", k.webhookId)
    .where("subject_id", "=", k.subjectId)
    .where("gate", "=", k.gate)
    .executeTakeFirst();
  return row ? Number(row.fixes) : 0;
}

/** One more fix launched in the run. */
export async function bumpGateStreak(db: Db, k: GateStreakKey, now: number): Promise<void> {
  await db
    .insertInto("gate_fix_streaks")
    .values({ webhook_id: k.webhookId, subject_id: k.subjectId, gate: k.gate, fixes: 1, updated_at: now })
    .onConflict((oc) =>
      oc.columns(["webhook_id", "subject_id", "gate"]).doUpdateSet((eb) => ({ fixes: eb("gate_fix_streaks.fixes", "+", 1), updated_at: now })),
    )
    .execute();
}

/** The gate passed on the pull request's head: the run is over. */
export async function resetGateStreak(db: Db, k: GateStreakKey): Promise<void> {
  await db.deleteFrom("gate_fix_streaks").where("webhook_id", "=", k.webhookId).where("subject_id", "=", k.subjectId).where("gate", "=", k.gate).execute();
}
