import type { DeliveryOutcome } from "./delivery-outcome.js";
import type { FinalDecision } from "./pipeline/delivery-decision.js";
import type { DeliveryCall } from "./delivery-call.js";
import { defer } from "./outcome-defer.js";
import { filtered } from "./outcome-filtered.js";
import { forgeError } from "./outcome-forge-error.js";
import { invalid } from "./outcome-invalid.js";
import { launch } from "./outcome-launch.js";
import type { OutcomeHandler } from "./outcome-handler.js";
import { stop } from "./outcome-stop.js";

/** Every final decision's handler, one per kind: a decision without one does not compile. */
export const outcomeHandlers = {
  filtered,
  invalid,
  forge_error: forgeError,
  stop,
  defer,
  launch,
} satisfies { [K in FinalDecision["kind"]]: OutcomeHandler<K> };

/** The decision handed to its kind's handler. */
export function handleOutcome(decision: FinalDecision, call: DeliveryCall): Promise<DeliveryOutcome> {
  const handler = outcomeHandlers[decision.kind] as OutcomeHandler<FinalDecision["kind"]>;
  return handler(decision, call);
}
