import { Compiled } from "../compiled.js";
import type { Db } from "../db.js";
import { dialect } from "../dialect.js";

/** Adds `delta` launches to the month's run counter (negative for a hand-back, floored at 0). */
const upsertOrgRuns = new Compiled(
  `insert into "org_usage" ("org_id", "month", "runs", "cost_micro", "input_tokens", "output_tokens", "aggregate_tokens", "updated_at")
   values (?, ?, ?, 0, 0, 0, 0, ?)
   on conflict ("org_id", "month") do update set
     "runs" = case when "org_usage"."runs" + ? < 0 then 0 else "org_usage"."runs" + ? end, "updated_at" = ?`,
);

/**
 * Adds `delta` runs (never below 0) to the org's month: the metering step of the gate, and
 * with -1 a launch's hand-back. A hand-back folds the month's tallies in first, so the floor
 * applies to the whole count. Hand-written: every launch counts one.
 */
export async function addOrgRuns(db: Db, orgId: string, month: string, delta: number, now: number): Promise<void> {
  if (delta < 0 && dialect(db).runTallies) await foldTallies(db, orgId, month, now);
  await upsertOrgRuns.run(db, [orgId, month, Math.max(0, delta), now, delta, delta, now]);
}

/** Moves the month's tallies (`org_run_tallies`, migration 0011) into `org_usage.runs`. */
async function foldTallies(db: Db, orgId: string, month: string, now: number): Promise<void> {
  await db
    .with("folded", (qc) => qc.deleteFrom("org_run_tallies").where("org_id", "=", orgId).where("month", "=", month).returning("runs"))
    .insertInto("org_usage")
    .columns(["org_id", "month", "runs", "cost_micro", "input_tokens", "output_tokens", "aggregate_tokens", "updated_at"])
    .expression((eb) =>
      eb
        .selectFrom("folded")
        .select((s) => [
          s.val(orgId).as("org_id"),
          s.val(month).as("month"),
          s.fn.sum<number>("runs").as("runs"),
          s.lit(0).as("cost_micro"),
          s.lit(0).as("input_tokens"),
          s.lit(0).as("output_tokens"),
          s.lit(0).as("aggregate_tokens"),
          s.val(now).as("updated_at"),
        ])
        .having((h) => h.fn.countAll(), ">", 0),
    )
    .onConflict((oc) =>
      oc
        .columns(["org_id", "month"])
        .doUpdateSet((eb) => ({ runs: eb("org_usage.runs", "+", eb.ref("excluded.runs")), updated_at: eb.ref("excluded.updated_at") })),
    )
    .execute();
}
