import type { OutcomeHandler } from "./outcome-handler.js";

/** The forge failed a lane's check: a launch_error row naming it; nothing launched, nothing posted. */
export const forgeError: OutcomeHandler<"forge_error"> = (decision, call) =>
  call.record("launch_error", decision.reason, (deliveryId) => ({ kind: "forge_error", reason: decision.reason, deliveryId }));
