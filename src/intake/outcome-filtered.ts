import type { OutcomeHandler } from "./outcome-handler.js";

/**
 * Filtered: its row with the reason. An untrusted author's issue on a board: its card waits on
 * the board for a team admin's approval, and the reason says so.
 */
export const filtered: OutcomeHandler<"filtered"> = async (decision, call) => {
  const parked = decision.held?.[0];
  let reason = decision.reason;
  if (parked?.card && call.config.board_mode !== "off") {
    const placed = await call.deps.cards.parkForApproval(call.config, parked);
    reason = `${reason}; card ${placed.cardId} waits on the board for approval`;
  }
  return call.record("filtered", reason, (deliveryId) => ({ kind: "filtered", reason, deliveryId }));
};
