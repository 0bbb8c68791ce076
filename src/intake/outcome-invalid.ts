import { invalidHttpStatus } from "./pipeline/delivery-decision.js";
import type { OutcomeHandler } from "./outcome-handler.js";

/** Invalid: its row with the refusal code; the status from {@link invalidHttpStatus}. */
export const invalid: OutcomeHandler<"invalid"> = (decision, call) => {
  const httpStatus = invalidHttpStatus(call.config.provider, decision.code);
  const { reason, code } = decision;
  return call.record("invalid", reason, (deliveryId) => ({ kind: "invalid", reason, httpStatus, deliveryId }), code);
};
