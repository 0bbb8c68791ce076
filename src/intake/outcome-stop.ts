import type { OutcomeHandler } from "./outcome-handler.js";

/** A closed pull request: its runs stopped, its parked launches dropped, and a filtered row saying so. */
export const stop: OutcomeHandler<"stop"> = async (decision, call) => {
  const refused = await call.admitAlone();
  if (refused) return refused;
  const { runs, parked } = call.deps;
  const stopped = await runs.stopBySubject(call.config.tenant_id, decision.subjectId);
  const dropped = await parked.dropForSubject(call.config.id, decision.subjectId, "parked launch dropped: the pull request was closed");
  const count = stopped.cancelled + stopped.cancelRequested;
  const disarmed = stopped.retriesDisarmed > 0 ? `, disarmed ${stopped.retriesDisarmed} retry(ies)` : "";
  const reason = `pull request closed: stopped ${count} run(s)${dropped > 0 ? `, dropped ${dropped} parked launch(es)` : ""}${disarmed}`;
  return { kind: "filtered", reason, stopped: count, deliveryId: await call.recordNow(call.row, "filtered", { reason }) };
};
