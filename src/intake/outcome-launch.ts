import type { BoardCardRow } from "../store/board.js";
import { bumpGateStreak } from "../store/gate-streaks.js";
import type { DeliveryOutcome, LaunchResultOf } from "./delivery-outcome.js";
import { planRowOf } from "./delivery-rows.js";
import type { KeyedOutcome } from "./keyed-launch.js";
import type { LaunchPlan } from "./pipeline/launch-plan.js";
import type { DeliveryCall } from "./delivery-call.js";
import type { OutcomeHandler } from "./outcome-handler.js";

/**
 * Launch: one idempotent launch per planned bot, the first carrying the call's admission. An
 * issue with a card on the board is launched by its card alone (so `/approve` approves the
 * card); under board_mode coordinate the issue's card is the work, and the dispatcher launches it.
 */
export const launch: OutcomeHandler<"launch"> = async (decision, call) => {
  const carded = await onBoard(call, decision.launches[0]);
  if (carded) return carded;
  const results: LaunchResultOf[] = [];
  for (const plan of decision.launches) {
    const keyed = await call.deps.keyed.launch(call.target, planRowOf(call.row, plan), plan, call.takeAdmission());
    if (keyed.kind === "refused") return call.refuse(keyed.refusal);
    if (keyed.kind === "launched") await afterLaunch(call, plan, keyed.runId);
    results.push(resultOf(keyed, plan.botId));
  }
  // Every bot's launch met a run a concurrent delivery launched: answered as a skipped overlap.
  if (results.every((r) => r.kind === "filtered")) {
    return { kind: "filtered", deliveryId: results[0]!.deliveryId, reason: results.map((r) => r.reason).join("; ") };
  }
  return { kind: "launch", results };
};

/** An issue's launch the board takes: its card approved, or put on the board; undefined when the board has no part in it. */
async function onBoard(call: DeliveryCall, issue: LaunchPlan | undefined): Promise<DeliveryOutcome | undefined> {
  const { config } = call;
  if (!issue?.card || config.board_mode === "off") return undefined;
  const card = issue.card.approval ? await call.deps.cards.cardOf(config, issue) : undefined;
  if (!card && config.board_mode !== "coordinate") return undefined;
  const refused = await call.admitAlone();
  if (refused) return refused;
  return card ? approveOnBoard(call, issue, card) : putOnBoard(call, issue);
}

/** A launched plan's consequences: the runs it supersedes cancelled, its card tracked, its gate fix counted. */
async function afterLaunch(call: DeliveryCall, plan: LaunchPlan, runId: string): Promise<void> {
  const { runs, cards, store } = call.deps;
  for (const superseded of plan.supersedes ?? []) await runs.cancel(superseded);
  if (call.config.board_mode === "track") await cards.track(call.config, plan, runId);
  if (plan.gateFix) await bumpGateStreak(store.db, { webhookId: call.config.id, subjectId: plan.subjectId, gate: plan.gateFix.gate }, call.now);
}

/** One bot's result as the delivery's answer names it. */
function resultOf(k: Exclude<KeyedOutcome, { kind: "refused" }>, botId: string): LaunchResultOf {
  switch (k.kind) {
    case "launched":
      return { kind: "launched", deliveryId: k.deliveryId, runId: k.runId, botId };
    case "duplicate":
      return { kind: "duplicate", deliveryId: k.deliveryId, runId: k.holder.run_id, originalDeliveryId: k.holder.id, botId };
    case "denied":
      return { kind: "denied", deliveryId: k.deliveryId, botId, denial: k.denial };
    case "filtered":
      return { kind: "filtered", deliveryId: k.deliveryId, botId, reason: k.reason };
  }
}

/** board_mode coordinate: the issue's card is the work; the delivery is pre-checked and the dispatcher launches the card. */
async function putOnBoard(call: DeliveryCall, plan: LaunchPlan): Promise<DeliveryOutcome> {
  const { row } = call;
  const placed = await call.deps.cards.coordinate(call.config, plan);
  const base = Object.assign({}, row, { bot_id: plan.botId, subject_id: plan.subjectId });
  if (placed.kind === "denied") {
    const { denial } = placed;
    const deliveryId = await call.recordNow(base, "launch_error", { reason: denial.detail, denial_reason: denial.error, failed_at: row.created_at });
    return { kind: "launch", results: [{ kind: "denied", deliveryId, botId: plan.botId, denial }] };
  }
  const reason = `card ${placed.cardId} ${placed.created ? "put" : "already"} on the board: the dispatcher launches it`;
  const deliveryId = await call.recordNow(base, "accepted", { reason });
  return { kind: "carded", deliveryId, cardId: placed.cardId, created: placed.created };
}

/** `/approve` on an issue with a card: the card is approved when it waits (the dispatcher launches it), else nothing. */
async function approveOnBoard(call: DeliveryCall, plan: LaunchPlan, card: BoardCardRow): Promise<DeliveryOutcome> {
  const base = Object.assign({}, call.row, { bot_id: plan.botId, subject_id: plan.subjectId });
  if (!(await call.deps.cards.approve(card, plan))) {
    const reason = `card ${card.id} is not waiting for an approval: the board launches the issue`;
    return { kind: "filtered", reason, deliveryId: await call.recordNow(base, "filtered", { reason }) };
  }
  const reason = `card ${card.id} approved: the dispatcher launches it`;
  const deliveryId = await call.recordNow(base, "accepted", { reason });
  return { kind: "carded", deliveryId, cardId: card.id, created: false };
}
