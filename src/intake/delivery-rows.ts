import type { NewDelivery } from "../store/deliveries.js";
import type { LaunchPlan } from "./delivery-decision.js";

/** A delivery's row before its outcome: everything but its id, status and key. */
export type Base = Omit<NewDelivery, "id" | "status" | "idempotency_key">;

/** The row of one bot's plan: the bot, and the plan's subject where it names one. */
export function planRowOf(row: Base, plan: LaunchPlan): Base {
  return {
    ...row,
    bot_id: plan.botId,
    subject_id: plan.subjectId,
    parent_subject_id: plan.parentSubjectId ?? null,
    subject_sha: plan.subjectSha ?? row.subject_sha ?? null,
    project_path: plan.projectPath || row.project_path || null,
  };
}

/**
 * A launching delivery's row. Object.assign, not `{ ...row, … }`: V8 adds keys the spread
 * copy lacks slowly (about 1 µs each), and every delivery builds one of these.
 */
export function deliveryRow(row: Base, outcome: Partial<NewDelivery> & Pick<NewDelivery, "status">, id: string, key: string): NewDelivery {
  return Object.assign({}, row, outcome, { id, idempotency_key: key, attempts: 1 });
}

/**
 * A non-launched row under a key of its own (its id), so a forge's retry of the same event
 * can still launch. Ids are time-ordered: the key index grows at its end, not at random pages.
 */
export function recordedRow(row: Base, status: NewDelivery["status"], extra: Partial<NewDelivery>, id: string): NewDelivery {
  return Object.assign({}, row, extra, { id, status, idempotency_key: `row|${id}` });
}
