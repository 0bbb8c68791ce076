import type { DeliveryOutcome } from "../intake/delivery-outcome.js";

/** The delivery rows an outcome wrote: none for a request refused before any row (unknown, disabled, suspended). */
export function deliveryIdsOf(outcome: DeliveryOutcome): string[] {
  switch (outcome.kind) {
    case "unknown_webhook":
    case "disabled":
    case "org_suspended":
      return [];
    case "bad_token":
    case "rate_limited":
    case "quota_exceeded":
    case "invalid":
    case "filtered":
    case "forge_error":
    case "carded":
      return [outcome.deliveryId];
    case "launch":
    case "deferred":
      return outcome.results.map((r) => r.deliveryId);
    default: {
      const unreachable: never = outcome;
      throw new Error(`unhandled outcome ${JSON.stringify(unreachable)}`);
    }
  }
}
