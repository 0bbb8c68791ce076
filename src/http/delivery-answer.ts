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
      return { status: 200, body: { status: "invalid", delivery_id: o.deliveryId, reason: o.reason } };
    case "filtered":
      return { status: 200, body: { status: "filtered", delivery_id: o.deliveryId, reason: o.reason, ...(o.stopped !== undefined && { stopped: o.stopped }) } };
    case "forge_error":
      return { status: 200, body: { status: "launch_error", delivery_id: o.deliveryId, reason: o.reason } };
    case "launch":
      return launchAnswer(o.results);
    case "deferred":
      return parkedAnswer(o.results);
    case "carded":
      return { status: 202, body: { status: "accepted", delivery_id: o.deliveryId, card_id: o.cardId, card_created: o.created } };
    default: {
      const unreachable: never = o;
      throw new Error(`unhandled outcome ${JSON.stringify(unreachable)}`);
    }
  }
}

/** One bot: its own result. A fan-out: 200 with every bot's result when any launched or was a duplicate. */
function launchAnswer(results: LaunchResultOf[]): Answer {
  const accepted = results.filter((r) => r.kind !== "denied");
  if (accepted.length === 0 && results[0]?.kind === "denied") return denialAnswer(results[0].denial);
  if (results.length === 1 && results[0]) return { status: 200, body: resultBody(results[0]) };
  const status = results.some((r) => r.kind === "launched") ? "launched" : "duplicate";
  return { status: 200, body: { status, results: results.map(resultBody) } };
}

function resultBody(r: LaunchResultOf) {
  switch (r.kind) {
    case "launched":
      return { status: "launched", run_id: r.runId, delivery_id: r.deliveryId, bot: r.botId };
    case "duplicate":
      return { status: "duplicate", run_id: r.runId, delivery_id: r.deliveryId, original_delivery_id: r.originalDeliveryId, bot: r.botId };
    case "denied":
      return { status: "launch_error", delivery_id: r.deliveryId, bot: r.botId, error: r.denial.error, detail: r.denial.detail };
    case "filtered":
      return { status: "filtered", delivery_id: r.deliveryId, bot: r.botId, reason: r.reason };
  }
}

/** 202 when any bot's launch was parked, else 200; one bot: its own result, a fan-out: every bot's. */
function parkedAnswer(results: ParkResult[]): Answer {
  const status = results.some((r) => r.kind === "deferred") ? 202 : 200;
  if (results.length === 1 && results[0]) return { status, body: parkedBody(results[0]) };
  const kind = status === 202 ? "deferred" : results.some((r) => r.kind === "duplicate") ? "duplicate" : "filtered";
  return { status, body: { status: kind, results: results.map(parkedBody) } };
}

function parkedBody(r: ParkResult) {
  switch (r.kind) {
    case "deferred":
      return { status: "deferred", delivery_id: r.deliveryId, bot: r.botId, launch_at: new Date(r.launchAt).toISOString() };
    case "filtered":
      return { status: "filtered", delivery_id: r.deliveryId, bot: r.botId, reason: r.reason };
    case "duplicate":
      return resultBody(r);
  }
}
