import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { Metrics } from "../metrics/metrics.js";

/** A caller's X-Request-Id is kept when it is plain: 1-128 of letters, digits and `._:+=@/-`. */
const PLAIN_ID = /^[A-Za-z0-9._:+=@/-]{1,128}$/;

/** The request's id: the caller's X-Request-Id when plain, else a fresh UUID. */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === "string" && PLAIN_ID.test(header) ? header : randomUUID();
}

export const REQUEST_ID_HEADER = "x-request-id";

/** What the access log and the duration histogram keep of one answered request: never headers or bodies. */
export interface RequestRecord {
  requestId: string;
  method: string;
  /** The route template (`/api/teams/:id`), or `unmatched`. */
  route: string;
  status: number;
  durationMs: number;
}

/**
 * The logger of access lines: the service's, without its redaction, which the line's fixed
 * fields do not need and which cost each line about 2 µs of CPU (bench/ANALYSIS.md, section 30).
 */
export function accessLogger(log: FastifyBaseLogger): FastifyBaseLogger {
  return log.child({}, { redact: { paths: [], censor: "" } });
}

/** One access log line (info; warn for a 5xx) to `log` (an {@link accessLogger}) and one histogram observation per answered request. */
export function recordRequest(log: FastifyBaseLogger, metrics: Metrics, r: RequestRecord): void {
  metrics.observeRequest(r.route, r.method, r.status, r.durationMs / 1000);
  const line = { request_id: r.requestId, method: r.method, route: r.route, status: r.status, duration_ms: Math.round(r.durationMs * 1000) / 1000 };
  if (r.status >= 500) log.warn(line, "request failed");
  else log.info(line, "request");
}
