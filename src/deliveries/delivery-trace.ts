import type { DeliveryRow } from "../store/deliveries.js";

/** The steps a delivery passes, in the endpoint's order (SPEC: Delivery endpoint). */
export const TRACE_STEPS = ["admission", "verification", "parse", "filters", "lane", "idempotency", "gate"] as const;
export type TraceStep = (typeof TRACE_STEPS)[number];

export interface TraceEntry {
  step: TraceStep;
  /** `passed`, `decided` (the step that gave the outcome), or `not_reached`. */
  result: "passed" | "decided" | "not_reached";
  detail: string | null;
}

export interface DeliveryTrace {
  decided_by: TraceStep;
  steps: TraceEntry[];
}

type Facts = Pick<DeliveryRow, "status" | "event_kind" | "reason" | "denial_reason" | "bot_id" | "run_id">;

/**
 * Which step gave a stored delivery its outcome, read from its row: the status, whether its body
 * was proven and parsed (an event kind is written only then), and a gate's denial token.
 */
export function decidingStep(d: Facts): TraceStep {
  switch (d.status) {
    case "rate_limited":
    case "quota_exceeded":
      return "admission";
    case "invalid":
      // A body that failed its proof or could not be read has no event; a parsed one failed its lane (bot, vars).
      return d.event_kind === null ? "verification" : "lane";
    case "filtered":
      // A named bot means a lane took the event and let it go (a parked launch dropped, a card waiting).
      return d.bot_id === null ? "filters" : "lane";
    case "accepted":
      // Parked for the debounce, or put on the board: the lane holds it.
      return "lane";
    case "duplicate":
      return "idempotency";
    case "launch_error":
      return d.denial_reason !== null ? "gate" : "lane";
    case "launched":
      return "gate";
  }
}

/** What the deciding step says. */
function decidedDetail(d: Facts, step: TraceStep): string | null {
  if (d.status === "launched") return `launched run ${d.run_id}`;
  if (step === "gate" && d.denial_reason) return d.reason ? `${d.denial_reason}: ${d.reason}` : d.denial_reason;
  return d.reason;
}

/** The short trace of a delivery: each step passed up to the one that decided it, the rest not reached. */
export function traceOf(d: Facts): DeliveryTrace {
  const decided = decidingStep(d);
  const at = TRACE_STEPS.indexOf(decided);
  const steps = TRACE_STEPS.map((step, i): TraceEntry => {
    if (i < at) return { step, result: "passed", detail: passedDetail(d, step) };
    if (i === at) return { step, result: "decided", detail: decidedDetail(d, step) };
    return { step, result: "not_reached", detail: null };
  });
  return { decided_by: decided, steps };
}

function passedDetail(d: Facts, step: TraceStep): string | null {
  switch (step) {
    case "parse":
      return d.event_kind;
    case "lane":
      return d.bot_id ? `bot ${d.bot_id}` : null;
    default:
      return null;
  }
}
