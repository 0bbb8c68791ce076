import type { WebhookConfig } from "../webhooks/webhook-config.js";
import { decideDelivery } from "./lanes/decide-delivery.js";
import type { DeliveryContext } from "./pipeline/delivery-context.js";
import { invalid, type DeliveryDecision } from "./pipeline/delivery-decision.js";
import type { DeliveryEvent } from "../forges/shared/delivery-event.js";
import { firstHeaderValue, type HeaderBag } from "../forges/shared/headers.js";
import type { PreparedBody } from "./pipeline/prepare-body.js";
import { providers } from "../forges/providers.js";
import { issueSubjectId, pullSubjectId } from "./pipeline/subject-id.js";

export interface DeliveryInput {
  config: WebhookConfig;
  headers: HeaderBag;
  /** The body hashed, proven and parsed ({@link prepareBody}, on a worker thread or not). */
  body: PreparedBody;
  context: DeliveryContext;
}

/** The selected payload fields a delivery row records, whatever the outcome. */
export interface DeliverySummary {
  /** SHA-256 hex of the raw body; the raw payload is never stored. */
  payloadSha256: string;
  /** The forge's delivery id header, for logs and support. */
  deliveryId?: string;
  eventKind?: string;
  eventAction?: string;
  projectPath?: string;
  subjectId?: string;
  subjectSha?: string;
}

export interface EvaluatedDelivery {
  decision: DeliveryDecision;
  summary: DeliverySummary;
  /** Present once the body verified and parsed. */
  event?: DeliveryEvent;
}

function summarise(event: DeliveryEvent): Omit<DeliverySummary, "payloadSha256" | "deliveryId"> {
  if (event.provider === "generic") return { eventKind: event.ping ? "ping" : "generic", projectPath: undefined };
  const { projectPath: path, number } = event;
  const isPull = event.kind === "pull_request" || event.kind === "merge_request" || event.commentOn === "pull_request";
  const subjectId =
    path === undefined || number === undefined
      ? undefined
      : isPull
        ? pullSubjectId(event.provider, path, number)
        : event.kind === "issues" || event.commentOn === "issue"
          ? issueSubjectId(event.provider, path, number)
          : undefined;
  return { eventKind: event.kind, eventAction: event.action || undefined, projectPath: path, subjectId, subjectSha: event.headSha };
}

/**
 * Decide on a prepared body, and summarise it for the delivery row: the pure part of the
 * delivery endpoint after the admission gates. Never throws on outside input; a body that
 * failed its proof or its parse is an `invalid` decision.
 */
export function evaluateDelivery(input: DeliveryInput): EvaluatedDelivery {
  const { body } = input;
  const summary: DeliverySummary = {
    payloadSha256: body.rawSha256,
    deliveryId: firstHeaderValue(input.headers, providers[input.config.provider].headers.delivery),
  };
  if (!body.ok) return { decision: invalid(body.code, body.reason), summary };
  const event = body.event;
  const decision = decideDelivery(input.config, event, input.context);
  const fromPlan = decision.kind === "launch" || decision.kind === "defer" ? decision.launches[0] : undefined;
  return {
    decision,
    event,
    summary: Object.assign(summary, summarise(event), fromPlan ? { subjectId: fromPlan.subjectId, projectPath: fromPlan.projectPath || undefined } : {}),
  };
}
