import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import type { FastifyBaseLogger } from "fastify";
import type { DeliveryIntake } from "../intake/delivery-intake.js";
import type { DeliveryOpening, DeliveryOutcome, OpenDelivery } from "../intake/delivery-outcome.js";
import type { Metrics } from "../metrics/metrics.js";
import { traced, tracingOn } from "../core/tracing.js";
import { deliveryIdsOf } from "../deliveries/outcome-rows.js";
import type { RequestKeeper } from "../deliveries/request-keeper.js";
import type { BodyBudget } from "./body-budget.js";
import { deliveryAnswer } from "./delivery-answer.js";
import { errorAnswer, thrownAnswer, type Answer } from "./error-handler.js";
import { readBody, type BodyRead } from "./read-body.js";

/** A delivery as it arrives: its URL's parts, its headers and its body, not yet read. */
export interface IncomingDelivery {
  provider: string;
  webhookId: string;
  headers: IncomingHttpHeaders;
  body: Readable;
  sourceIp: string | null;
  /** The request's id (X-Request-Id, or the one made for it), for its trace. */
  requestId?: string;
}

export interface DeliveryReceiverDeps {
  intake: DeliveryIntake;
  budget: BodyBudget;
  metrics: Metrics;
  log: FastifyBaseLogger;
  /** Keeps the requests of webhooks that ask (`keep_payloads`). */
  keeper?: RequestKeeper;
}

/** Answers a delivery, or null when its caller went away before the end of its body. */
export type DeliveryReceiver = (delivery: IncomingDelivery) => Promise<Answer | null>;

/**
 * The delivery endpoint for the route and the fast path alike: the gates that need only the URL
 * and headers first (an unknown, mismatched or disabled webhook, a wrong token), so that a
 * refused delivery's body is never read; then the body, within its provider's limit and the
 * process's body budget; then the intake.
 */
export function deliveryReceiver(deps: DeliveryReceiverDeps): DeliveryReceiver {
  const receive = untracedReceiver(deps);
  return (delivery) => (tracingOn() ? tracedDelivery(receive, delivery) : receive(delivery));
}

/**
 * A delivery's root span (`delivery`): the request id, the provider and the webhook id as the
 * URL gives them, then the answer's status and outcome, and the run it launched; never a header,
 * the body or a secret. A W3C `traceparent` the caller sent is continued: the span is its child.
 */
function tracedDelivery(receive: DeliveryReceiver, delivery: IncomingDelivery): Promise<Answer | null> {
  const attributes = { "request.id": delivery.requestId, "delivery.provider": delivery.provider, "webhook.id": delivery.webhookId };
  return traced(
    "delivery",
    attributes,
    async (span) => {
      const answer = await receive(delivery);
      if (!answer) span.set({ "delivery.aborted": true });
      else {
        const body = answer.body as { delivery_id?: unknown; run_id?: unknown };
        span.set({
          "http.response.status_code": answer.status,
          "delivery.answer": answerKind(answer),
          "delivery.id": typeof body.delivery_id === "string" ? body.delivery_id : undefined,
          // The run's own spans (its runner's claim, attempt and finish) carry the same run.id.
          "run.id": typeof body.run_id === "string" ? body.run_id : undefined,
        });
        if (answer.status >= 500) span.fail(`answered ${answer.status}`);
      }
      return answer;
    },
    "server",
    delivery.headers,
  );
}

/** The answer's stable word: its `status` or its `error` code (a word of the delivery API, never free text). */
function answerKind(answer: Answer): string | undefined {
  const body = answer.body as { error?: unknown; status?: unknown };
  const word = body.status ?? body.error;
  return typeof word === "string" && /^[a-z_]{1,40}$/.test(word) ? word : undefined;
}

function untracedReceiver(deps: DeliveryReceiverDeps): DeliveryReceiver {
  const { intake, budget, metrics, log, keeper } = deps;
  return async (delivery) => {
    let read: BodyRead;
    let opened: DeliveryOpening;
    try {
      opened = await intake.open(delivery);
      if (opened.kind === "refused") return unread(delivery.headers, deliveryAnswer(opened.outcome));
      read = await readBody(delivery.body, delivery.headers, opened.maxBodyBytes, budget);
    } catch (err) {
      return unread(delivery.headers, thrownAnswer(err, log));
    }
    switch (read.kind) {
      case "too_large":
        metrics.httpBodiesRefused.inc({ reason: "too_large" });
        return { ...errorAnswer("payload_too_large", `a ${opened.provider} delivery carries at most ${opened.maxBodyBytes} bytes`), close: true };
      case "busy":
        metrics.httpBodiesRefused.inc({ reason: "busy" });
        return { ...errorAnswer("server_busy", "too many request bodies are being read at once; try again", undefined, 1), close: true };
      case "aborted":
        metrics.httpAborted.inc({ route: "delivery" });
        log.debug({ webhookId: delivery.webhookId }, "delivery aborted by its caller");
        return null;
      case "body":
        try {
          const outcome = await intake.receive(opened, { ...delivery, rawBody: read.body });
          if (keeper && opened.target.config.keep_payloads) await keep(keeper, opened, delivery, read.body, outcome, log);
          return deliveryAnswer(outcome);
        } catch (err) {
          return thrownAnswer(err, log);
        } finally {
          read.release();
        }
    }
  };
}

/** Past this, a refused delivery's unread body is not worth taking in to keep the connection. */
const DISCARD_MAX_BYTES = 64 * 1024;

/**
 * An answer sent before the body was read. A small body is discarded as it arrives (node:http
 * does so) and the connection kept; a large or chunked one is never taken in: the connection closes.
 */
function unread(headers: IncomingHttpHeaders, a: Answer): Answer {
  const large = headers["transfer-encoding"] !== undefined || Number(headers["content-length"] ?? 0) > DISCARD_MAX_BYTES;
  return large ? { ...a, close: true } : a;
}

/**
 * A delivery's request kept once its rows are committed, before it is answered. A request that
 * could not be kept is logged (never its body) and the delivery answered as decided.
 */
async function keep(keeper: RequestKeeper, opened: OpenDelivery, delivery: IncomingDelivery, body: Buffer, outcome: DeliveryOutcome, log: FastifyBaseLogger) {
  const { config } = opened.target;
  try {
    await keeper.keep({
      tenantId: config.tenant_id,
      webhookId: config.id,
      provider: opened.provider,
      headers: delivery.headers,
      body,
      sourceIp: delivery.sourceIp,
      deliveryIds: deliveryIdsOf(outcome),
    });
  } catch (err) {
    log.error({ err, webhookId: config.id }, "a delivery's request could not be kept");
  }
}
