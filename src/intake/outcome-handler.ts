import type { DeliveryOutcome } from "./delivery-outcome.js";
import type { FinalDecision } from "./pipeline/delivery-decision.js";
import type { DeliveryCall } from "./delivery-call.js";

/** One final decision's handler: its writes and its answer. */
export type OutcomeHandler<K extends FinalDecision["kind"]> = (decision: Extract<FinalDecision, { kind: K }>, call: DeliveryCall) => Promise<DeliveryOutcome>;
