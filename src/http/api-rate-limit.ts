import { createHash } from "node:crypto";
import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { COOKIE } from "../console/console-session.js";
import { ServiceError } from "../core/errors.js";

/** Forges' deliveries have their own buckets and quotas; runners speak their protocol at their own pace. */
const EXEMPT = [/^\/api\/webhooks\//, /^\/api\/runner\//];

/** Whose allowance a request spends: its credential's (a digest, never the credential itself), else its address's (a refused credential is answered 401 before this limit). */
export function rateLimitKey(req: FastifyRequest): string {
  const auth = req.headers.authorization;
  const credential = auth?.toLowerCase().startsWith("bearer ") ? auth.slice(7).trim() : req.cookies?.[COOKIE];
  if (credential) return `c:${createHash("sha256").update(credential).digest("base64url").slice(0, 22)}`;
  return `a:${req.ip}`;
}

/**
 * The management API's per-credential limit (SERVICE_API_RATE_LIMIT calls a minute; 0 turns it
 * off): generous for people and scripts, a ceiling for a runaway loop or a stolen token. Held by
 * each replica. Beyond it, 429 `rate_limited` with Retry-After.
 */
export async function installApiRateLimit(app: FastifyInstance, perMinute: number): Promise<void> {
  if (perMinute <= 0) return;
  await app.register(rateLimit, {
    max: perMinute,
    timeWindow: 60_000,
    keyGenerator: rateLimitKey,
    allowList: (req) => !req.url.startsWith("/api/") || EXEMPT.some((re) => re.test(req.url)),
    errorResponseBuilder: (_req, ctx) =>
      new ServiceError(
        "rate_limited",
        `more than ${ctx.max} calls a minute with this credential; try again in ${Math.ceil(ctx.ttl / 1000)} s`,
        undefined,
        Math.max(1, Math.ceil(ctx.ttl / 1000)),
      ),
  });
}
