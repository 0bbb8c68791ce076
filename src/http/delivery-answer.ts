import type { DeliveryOutcome, LaunchResultOf } from "../intake/delivery-outcome.js";
import type { ParkResult } from "../intake/parked-launches.js";
import { errorAnswer, type Answer } from "./error-handler.js";
import { denialAnswer } from "./send-denial.js";

/** Each outcome's status and body, for the route and the fast path alike. */
export function deliveryAnswer(o: DeliveryOutcome): Answer {
  switch (o.kind) {
    case "unknown_webhook":
      return errorAnswer("invalid_webhook", "invalid webhook");
    case "bad_token":
      return errorAnswer("invalid_webhook_token", "invalid webhook token");
    case "disabled":
      return errorAnswer("webhook_disabled", "webhook disabled");
    case "rate_limited":
      return errorAnswer("rate_limited", "webhook rate limit exceeded", undefined, o.retryAfterSeconds);
    case "quota_exceeded":
      return errorAnswer("monthly_call_quota_exceeded", "monthly call quota exceeded");
    case "org_suspended":
      return errorAnswer("org_suspended", "org suspended");
    case "invalid":
      if (o.httpStatus === 401) return errorAnswer("invalid_signature", o.reason);
      if (o.httpStatus === 400) return errorAnswer("invalid_request", o.reason);
      return { status: 200, body: noteBody("invalid", o.deliveryId, o.reason) };
    case "filtered":
      return { status: 200, body: o.stopped === undefined ? noteBody("filtered", o.deliveryId, o.reason) : stoppedBody(o.deliveryId, o.reason, o.stopped) };
    case "forge_error":
      return { status: 200, body: noteBody("launch_error", o.deliveryId, o.reason) };
    case "launch":
      return launchAnswer(o.results);
    case "deferred":
      return parkedAnswer(o.results);
    case "carded":
      return { status: 202, body: cardedBody(o.deliveryId, o.cardId, o.created) };
    default: {
      const unreachable: never = o;
      throw new Error(`unhandled outcome ${JSON.stringify(unreachable)}`);
    }
  }
}

// The bodies below are held equal to their schemas (routes/delivery-answer-bodies.ts) by the
// compiler (routes/body-checks.ts): a field added here and not there does not build.

/** Nothing launched, with the reason: filtered, invalid, or a forge's check failed. */
export function noteBody<S extends "filtered" | "invalid" | "launch_error">(status: S, deliveryId: string, reason: string) {
  return { status, delivery_id: deliveryId, reason };
}

/** A closed pull request: its runs stopped. */
export function stoppedBody(deliveryId: string, reason: string, stopped: number) {
  return { status: "filtered" as const, delivery_id: deliveryId, reason, stopped };
}

export function cardedBody(deliveryId: string, cardId: string, created: boolean) {
  return { status: "accepted" as const, delivery_id: deliveryId, card_id: cardId, card_created: created };
}

/** One bot: its own result. A fan-out: 200 with every bot's result when any launched or was a duplicate. */
function launchAnswer(results: LaunchResultOf[]): Answer {
  const accepted = results.filter((r) => r.kind !== "denied");
  if (accepted.length === 0 && results[0]?.kind === "denied") return denialAnswer(results[0].denial);
  if (results.length === 1 && results[0]) return { status: 200, body: resultBody(results[0]) };
  return { status: 200, body: resultsBody(results) };
}

export function resultsBody(results: LaunchResultOf[]) {
  const status = results.some((r) => r.kind === "launched") ? ("launched" as const) : ("duplicate" as const);
  return { status, results: results.map(resultBody) };
}

export function resultBody(r: LaunchResultOf) {
  switch (r.kind) {
    case "launched":
      return { status: "launched" as const, run_id: r.runId, delivery_id: r.deliveryId, bot: r.botId };
    case "duplicate":
      return duplicateBody(r);
    case "denied":
      return { status: "launch_error" as const, delivery_id: r.deliveryId, bot: r.botId, error: r.denial.error as string, detail: r.denial.detail };
    case "filtered":
      return botFilteredBody(r);
  }
}

function duplicateBody(r: { deliveryId: string; runId: string | null; originalDeliveryId: string; botId: string }) {
  return { status: "duplicate" as const, run_id: r.runId, delivery_id: r.deliveryId, original_delivery_id: r.originalDeliveryId, bot: r.botId };
}

function botFilteredBody(r: { deliveryId: string; botId: string; reason: string }) {
  return { status: "filtered" as const, delivery_id: r.deliveryId, bot: r.botId, reason: r.reason };
}

/** 202 when any bot's launch was parked, else 200; one bot: its own result, a fan-out: every bot's. */
function parkedAnswer(results: ParkResult[]): Answer {
  const status = results.some((r) => r.kind === "deferred") ? 202 : 200;
  if (results.length === 1 && results[0]) return { status, body: parkedBody(results[0]) };
  return { status, body: parkedResultsBody(results) };
}

/** A fan-out's parked launches: `deferred` (202) when any was parked, else `duplicate` or `filtered` (200). */
export function parkedResultsBody(results: ParkResult[]) {
  const kind = results.some((r) => r.kind === "deferred") ? "deferred" : results.some((r) => r.kind === "duplicate") ? "duplicate" : "filtered";
  return { status: kind as "deferred" | "duplicate" | "filtered", results: results.map(parkedBody) };
}

export function parkedBody(r: ParkResult) {
  switch (r.kind) {
    case "deferred":
      return { status: "deferred" as const, delivery_id: r.deliveryId, bot: r.botId, launch_at: new Date(r.launchAt).toISOString() };
    case "filtered":
      return botFilteredBody(r);
    case "duplicate":
      return duplicateBody(r);
  }
}
