import { traced, tracingOn } from "../core/tracing.js";
import type { PreparedBody } from "./pipeline/prepare-body.js";
import type { FinalDecision } from "./pipeline/delivery-decision.js";

/**
 * A delivery's body proof and parse as a span (`delivery.verify`): the provider, the webhook's
 * sign mode and, on a refusal, the refusal's code; never the body or the reason's text.
 */
export function verifySpan(provider: string, signMode: string, prepare: () => Promise<PreparedBody>): Promise<PreparedBody> {
  if (!tracingOn()) return prepare();
  return traced("delivery.verify", { "delivery.provider": provider, "webhook.sign_mode": signMode }, async (span) => {
    const body = await prepare();
    span.set({ "delivery.proven": body.ok });
    if (!body.ok) span.fail(body.code);
    return body;
  });
}

/** A delivery's decision as a span (`delivery.decide`): its kind, and the number of launches it asks for. */
export function decisionSpan<T extends { decision: FinalDecision }>(decide: () => Promise<T>): Promise<T> {
  if (!tracingOn()) return decide();
  return traced("delivery.decide", {}, async (span) => {
    const decided = await decide();
    const { decision } = decided;
    span.set({ "delivery.decision": decision.kind, "delivery.launches": "launches" in decision ? decision.launches.length : undefined });
    return decided;
  });
}
