import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { FastifyBaseLogger } from "fastify";
import type { Metrics } from "../metrics/metrics.js";
import { answerBody, type Answer } from "./error-handler.js";
import type { DeliveryReceiver } from "./receive-delivery.js";
import { REQUEST_ID_HEADER, accessLogger, recordRequest, requestIdOf } from "./request-record.js";

/**
 * What Fastify's router would match for `POST /api/webhooks/:provider/:id` with nothing to
 * decode: no percent-escapes, each segment within Fastify's 100-character limit; a query is ignored.
 */
const ROUTE = /^\/api\/webhooks\/([A-Za-z0-9_-]{1,32})\/([A-Za-z0-9_-]{1,100})(?:\?.*)?$/;

export interface DeliveryFastPathOptions {
  receive: DeliveryReceiver;
  log: FastifyBaseLogger;
  /** The caller's address, as the route reads it. */
  address: (req: IncomingMessage) => string | undefined;
  /** True once the server is closing: Fastify then answers 503. */
  closing: () => boolean;
  /** Where each answered delivery's duration goes (service_http_request_duration_seconds). */
  metrics: Metrics;
}

const ROUTE_TEMPLATE = "/api/webhooks/:provider/:id";

/**
 * Forge deliveries straight from node:http to the receiver, ahead of Fastify's router: the same
 * receiver and the same answers as the `POST /api/webhooks/:provider/:id` route, without the
 * framework's per-request work (request and reply objects, hooks, a child logger): about a tenth
 * of the event loop's time per delivery (bench/ANALYSIS.md, section 20). An escaped segment or a
 * closing server goes on to Fastify. Answers `true` when it took the request.
 */
export function deliveryFastPath(opts: DeliveryFastPathOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const access = accessLogger(opts.log);
  return (req, res) => {
    if (req.method !== "POST") return false;
    const route = ROUTE.exec(req.url ?? "");
    if (!route || opts.closing()) return false;
    const started = performance.now();
    const requestId = requestIdOf(req.headers[REQUEST_ID_HEADER]);
    opts
      .receive({ provider: route[1]!, webhookId: route[2]!, headers: req.headers, body: req, sourceIp: opts.address(req) ?? null, requestId })
      .then((a) => (a ? send(res, a, requestId, started, opts, access) : res.destroy()))
      .catch((err: unknown) => {
        opts.log.error({ err }, "answering a delivery failed");
        res.destroy();
      });
    return true;
  };
}

function send(res: ServerResponse, a: Answer, requestId: string, started: number, opts: DeliveryFastPathOptions, access: FastifyBaseLogger): void {
  const payload = JSON.stringify(answerBody(a, requestId));
  const headers: Record<string, string | number> = {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(payload),
    [REQUEST_ID_HEADER]: requestId,
  };
  if (a.retryAfter !== undefined) headers["retry-after"] = String(a.retryAfter);
  // A body left unread, or a server stopping: the caller should not send another on this connection.
  if (a.close || opts.closing()) headers.connection = "close";
  res.writeHead(a.status, headers);
  res.end(payload);
  recordRequest(access, opts.metrics, { requestId, method: "POST", route: ROUTE_TEMPLATE, status: a.status, durationMs: performance.now() - started });
}
