import { ACTIVE_RUN_STATUSES } from "./schema/runs.js";
import type { Db } from "./db.js";

/** An in-flight run, with the idempotency key of the delivery that launched it (null when none did). */
export interface ActiveRun {
  id: string;
  idempotencyKey: string | null;
}

/** The queued and running runs one webhook launched for one bot on one subject: what `overlap` is keyed on. */
export async function findActiveRunsOfSubject(db: Db, match: { teamId: string; webhookId: string; subjectId: string; botId: string }): Promise<ActiveRun[]> {
  const rows = await db
    .selectFrom("runs")
    .leftJoin("webhook_deliveries", "webhook_deliveries.id", "runs.delivery_id")
    .select(["runs.id as id", "webhook_deliveries.idempotency_key as key"])
    .where("runs.team_id", "=", match.teamId)
    .where("runs.subject_id", "=", match.subjectId)
    .where("runs.webhook_id", "=", match.webhookId)
    .where("runs.bot_id", "=", match.botId)
    .where("runs.status", "in", [...ACTIVE_RUN_STATUSES])
    .orderBy("runs.created_at")
    .execute();
  return rows.map((r) => ({ id: r.id, idempotencyKey: r.key ?? null }));
}
