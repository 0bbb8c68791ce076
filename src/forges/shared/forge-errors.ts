import type { ForgeError, ForgeErrorCode } from "./forge-client.js";

/** A forge call's failure, thrown inside the forge modules and the guarded fetch, caught by the guard. */
export class ForgeFailure extends Error {
  constructor(readonly error: ForgeError) {
    super(error.reason);
    this.name = "ForgeFailure";
  }
}

export const forgeFailure = (code: ForgeErrorCode, reason: string) => new ForgeFailure({ code, reason });

/** A forge's HTTP answer, as a library reports it (fetch's Headers, or octokit's plain object). */
export interface HttpFailure {
  status: number;
  headers: Headers | Record<string, string | number | undefined>;
}

type HeaderGet = (name: string) => string | undefined;

function headerGetter(headers: HttpFailure["headers"]): HeaderGet {
  if (headers instanceof Headers) return (name) => headers.get(name) ?? undefined;
  return (name) => {
    const v = headers[name] ?? headers[name.toLowerCase()];
    return v === undefined ? undefined : String(v);
  };
}

/**
 * How long the forge asked us to wait, if it said: Retry-After (seconds or a date), else
 * an exhausted quota's reset time (GitHub's X-RateLimit-*, GitLab's RateLimit-*, epoch seconds).
 */
export function rateLimitWaitMs(headers: HttpFailure["headers"], nowMs: number): number | undefined {
  const get = headerGetter(headers);
  const retryAfter = get("retry-after");
  if (retryAfter !== undefined && retryAfter.trim() !== "") {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, date - nowMs);
  }
  const remaining = get("x-ratelimit-remaining") ?? get("ratelimit-remaining");
  const reset = Number(get("x-ratelimit-reset") ?? get("ratelimit-reset"));
  if (remaining === "0" && Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1000 - nowMs);
  return undefined;
}

/** 429 always; 403 when it carries a wait (GitHub answers an exhausted quota with 403). */
export function isRateLimited(failure: HttpFailure, nowMs: number): boolean {
  return failure.status === 429 || (failure.status === 403 && rateLimitWaitMs(failure.headers, nowMs) !== undefined);
}

/** The one status → code map for every forge. */
export function httpFailure(failure: HttpFailure, nowMs: number): ForgeError {
  const { status } = failure;
  if (isRateLimited(failure, nowMs)) {
    const retryAfterMs = rateLimitWaitMs(failure.headers, nowMs);
    return { code: "rate_limited", status, reason: `the forge rate-limited the token (${status})`, ...(retryAfterMs !== undefined && { retryAfterMs }) };
  }
  const code: ForgeErrorCode =
    status === 401 || status === 403 ? "forge_denied" : status === 404 || status === 410 ? "not_found" : status >= 500 ? "forge_unavailable" : "forge_rejected";
  return { code, status, reason: `the forge answered ${status}` };
}

/** The first error in a `cause` chain that passes `test`. */
export function findCause<E>(err: unknown, test: (e: unknown) => e is E): E | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    if (test(e)) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Any throw from a forge call, as a value. Our own failures (from the guarded fetch, or a
 * forge module) win, wherever a library wrapped them; then the library's HTTP answer.
 */
export function toForgeError(err: unknown, failureOf: (err: unknown) => HttpFailure | undefined, nowMs: number): ForgeError {
  const ours = findCause(err, (e): e is ForgeFailure => e instanceof ForgeFailure);
  if (ours) return ours.error;
  const http = failureOf(err);
  if (http) return httpFailure(http, nowMs);
  // Only the error's name: a message may quote a request.
  const name = err instanceof Error ? err.name : typeof err;
  return { code: "forge_unavailable", reason: `the forge call failed without an answer (${name})` };
}
