import type { IncomingMessage, ServerResponse } from "node:http";
import { bindToSpan, traced, tracingOn, type TraceSpan } from "../core/tracing.js";

/** Each traced request's span, until it is answered. */
const spans = new WeakMap<IncomingMessage, TraceSpan>();

/**
 * Whether a request gets a span of its own: API calls do; a delivery makes its own
 * (`delivery`, receive-delivery.ts), and health checks, metrics and the console's pages none.
 */
function traceable(url: string | undefined): boolean {
  return url?.startsWith("/api/") === true && !url.startsWith("/api/webhooks/");
}

/**
 * Hands an API request to `handle` inside a server span that continues the caller's
 * `traceparent` and ends when the response closes. Off, `handle` and nothing more.
 */
export function handleTraced(req: IncomingMessage, res: ServerResponse, handle: (req: IncomingMessage, res: ServerResponse) => void): void {
  if (!tracingOn() || !traceable(req.url)) {
    handle(req, res);
    return;
  }
  const method = req.method ?? "HTTP";
  void traced(
    method,
    { "http.request.method": method },
    (span) =>
      new Promise<void>((resolve) => {
        spans.set(req, span);
        res.once("close", resolve);
        handle(bindToSpan(req), bindToSpan(res));
      }),
    "server",
    req.headers,
  );
}

/**
 * An answered request's facts on its span, which is named `METHOD route` (the route's template,
 * never the path with its ids). Only the access log's facts: never a header, a query or a body.
 */
export function describeRequestSpan(req: IncomingMessage, facts: { method: string; route: string; status: number; requestId: string }): void {
  const span = spans.get(req);
  if (!span) return;
  spans.delete(req);
  const routed = facts.route !== "unmatched";
  if (routed) span.rename(`${facts.method} ${facts.route}`);
  span.set({ "http.route": routed ? facts.route : undefined, "http.response.status_code": facts.status, "request.id": facts.requestId });
  if (facts.status >= 500) span.fail(`answered ${facts.status}`);
}
