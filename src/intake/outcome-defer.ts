import type { ParkResult } from "./parked-launches.js";
import type { OutcomeHandler } from "./outcome-handler.js";

/** A synchronize push under the debounce: each bot's launch parked. */
export const defer: OutcomeHandler<"defer"> = async (decision, call) => {
  const refused = await call.admitAlone();
  if (refused) return refused;
  const results: ParkResult[] = [];
  for (const plan of decision.launches) results.push(await call.deps.parked.park(call.row, plan, decision.eventAt));
  return { kind: "deferred", results };
};
