import { Compiled } from "../compiled.js";
import type { Db } from "../db.js";
import { duplicateRow, findDeliveryByKey, insertDelivery } from "../deliveries.js";
import { FREE, GATE, RECORDED, type CommitAnswer, type DeliveryCommit } from "../delivery-ledger.js";
import { insertRun } from "../runs.js";
import { addOrgRuns } from "../usage.js";
import { admitOnSqlite } from "./admit-webhook-call.js";

/** The team's org when no limit applies: `noLimitApplies` (admission/decide-launch.ts) over the rows, defaults left to the caller. */
const ungatedOwner = new Compiled<{ org_id: string }>(
  `select "orgs"."id" as "org_id" from "teams" inner join "orgs" on "orgs"."id" = "teams"."org_id"
   where "teams"."id" = ? and "teams"."status" = 'active' and "orgs"."status" = 'active' and "teams"."max_concurrent_runs" <= 0 and "teams"."launch_rate_per_min" <= 0
     and "orgs"."monthly_cost_cap_micro" <= 0 and "orgs"."monthly_run_quota" <= 0`,
);

/**
 * A webhook call's writes as one transaction, the twin of store/postgres/deliver-webhook-calls.sql.
 * Under the write lock the key check sees every row written before, so a launch cannot lose its
 * key to a concurrent delivery; an error leaves nothing written, the admission included.
 */
export async function commitOnSqlite(tx: Db, c: DeliveryCommit): Promise<CommitAnswer> {
  if (c.admission) {
    const admission = await admitOnSqlite(tx, c.admission);
    if (admission.kind !== "admitted") return { kind: "refused", refusal: admission };
  }
  const { row, launch, replayOf } = c;
  if (!launch && !replayOf) {
    await insertDelivery(tx, row);
    return RECORDED;
  }
  const holder = await findDeliveryByKey(tx, row.tenant_id, row.idempotency_key);
  if (holder) {
    if (!replayOf || holder.status === "launch_error") return { kind: "taken", holder, recorded: false };
    await insertDelivery(tx, duplicateRow(row, holder, replayOf));
    return { kind: "taken", holder, recorded: true };
  }
  if (!launch) return FREE;
  const [owner] = await ungatedOwner.rows(tx, [launch.teamId]);
  if (!owner) return GATE;
  await insertRun(tx, Object.assign({}, launch.run, { org_id: owner.org_id }));
  await insertDelivery(tx, row);
  await addOrgRuns(tx, owner.org_id, launch.month, 1);
  return { kind: "launched", orgId: owner.org_id };
}
