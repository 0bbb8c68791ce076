import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyBaseLogger } from "fastify";
import type { DeliveryIntake } from "../intake/delivery-intake.js";
import { thrownAnswer, type Answer } from "./error-handler.js";
import { deliveryAnswer, MAX_DELIVERY_BYTES } from "./routes/webhook-delivery.js";

/**
 * What Fastify's router would match for `POST /api/webhooks/:provider/:id` with nothing to
 * decode: no query, no percent-escapes, each segment within Fastify's 100-character limit.
 */
const ROUTE = /^\/api\/webhooks\/([A-Za-z0-9_-]{1,32})\/([A-Za-z0-9_-]{1,100})$/;
const DECIMAL = /^\d{1,9}$/;

export interface DeliveryFastPathOptions {
  intake: DeliveryIntake;
  log: FastifyBaseLogger;
  /** The caller's address, as the route reads it. */
  address: (req: IncomingMessage) => string | undefined;
  /** True once the server is closing: Fastify then answers 503. */
  closing: () => boolean;
}

/**
 * Forge deliveries straight from node:http to the intake, ahead of Fastify's router: the same
 * intake call and the same answers as the `POST /api/webhooks/:provider/:id` route, without the
 * framework's per-request work (request and reply objects, hooks, the body parser, a child
 * logger): about a tenth of the event loop's time per delivery (bench/ANALYSIS.md, section 20).
 * It takes only the plain case, a POST to a plain URL with a Content-Type and a Content-Length
 * within the limit; anything else (a chunked or oversized body, a query string, an escaped
 * segment, a closing server) goes on to Fastify, which answers it as it always has. Answers
 * `true` when it took the request.
 */
export function deliveryFastPath(opts: DeliveryFastPathOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== "POST") return false;
    const route = ROUTE.exec(req.url ?? "");
    if (!route) return false;
    const { headers } = req;
    const length = headers["content-length"];
    if (length === undefined || !DECIMAL.test(length) || Number(length) > MAX_DELIVERY_BYTES) return false;
    if (headers["content-type"] === undefined || headers["transfer-encoding"] !== undefined || opts.closing()) return false;

    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    });
    // A caller gone mid-body: nothing was read, nothing is answered.
    req.on("error", () => {});
    req.on("end", () => {
      const rawBody = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      chunks.length = 0;
      const answer = async (): Promise<Answer> => {
        try {
          return deliveryAnswer(await opts.intake.deliver({ provider: route[1]!, webhookId: route[2]!, headers, rawBody, sourceIp: opts.address(req) ?? null }));
        } catch (err) {
          return thrownAnswer(err, opts.log);
        }
      };
      answer()
        .then((a) => send(req, res, a, opts))
        .catch((err: unknown) => {
          opts.log.error({ err }, "answering a delivery failed");
          res.destroy();
        });
    });
    return true;
  };
}

function send(req: IncomingMessage, res: ServerResponse, a: Answer, opts: DeliveryFastPathOptions): void {
  const payload = JSON.stringify(a.body);
  const headers: Record<string, string | number> = { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(payload) };
  if (a.retryAfter !== undefined) headers["retry-after"] = String(a.retryAfter);
  // A delivery answered while the server stops: its caller should not send another on this connection.
  if (opts.closing()) headers.connection = "close";
  res.writeHead(a.status, headers);
  res.end(payload);
  if (a.status >= 500) opts.log.warn({ method: req.method, route: "/api/webhooks/:provider/:id", status: a.status }, "request failed");
}
