import type { FastifyReply, FastifyRequest } from "fastify";

/** The cookie holding the console's token: HttpOnly, SameSite=Strict, only ever sent to /console. */
export const COOKIE = "console_token";
/** A signed-in console session lasts at most this long in the browser (the token's own expiry still applies). */
const MAX_AGE_S = 12 * 3600;

/** The console token from the cookie, as @fastify/cookie parsed it (a malformed header or escape is no token, never a throw). */
export function tokenOf(req: FastifyRequest): string | undefined {
  const token = req.cookies?.[COOKIE];
  return token === undefined || token === "" ? undefined : token;
}

/**
 * The console's page headers: no script, style, frame, form target or connection but its own
 * (no inline script or style anywhere), never framed.
 */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

export function setToken(reply: FastifyReply, token: string, secure: boolean): void {
  reply.header(
    "set-cookie",
    `${COOKIE}=${encodeURIComponent(token)}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${MAX_AGE_S}${secure ? "; Secure" : ""}`,
  );
}

export function clearToken(reply: FastifyReply): void {
  reply.header("set-cookie", `${COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0`);
}

/**
 * A form post is accepted only from the console's own pages: an `Origin` (or, without one, a
 * `Referer`) of the service's own origin. With the SameSite=Strict cookie this keeps other sites
 * from posting on a signed-in user's behalf.
 */
export function sameOrigin(req: FastifyRequest, baseUrl: string): boolean {
  const own = new URL(baseUrl).origin;
  const origin = req.headers.origin ?? (req.headers.referer ? safeOrigin(req.headers.referer) : undefined);
  return origin === own || origin === `${req.protocol}://${req.headers.host}`;
}

function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
