import type { FastifyInstance } from "fastify";
import type { RunnerIdentity } from "../runs/desk/runner-tokens.js";
import type { Principal } from "../tenancy/access.js";
import { sendError } from "./error-handler.js";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Every route but the public ones needs `Authorization: Bearer iap_…` (or a `ses_…` session).
 * Missing, unknown, revoked or expired tokens get 401; a session that must change its password
 * reaches only the routes marked `duringPasswordChange`; roles are checked by the capability.
 */
export function installAuth(
  app: FastifyInstance,
  authenticate: (token: string) => Promise<Principal | undefined>,
  authenticateRunner: (token: string) => Promise<RunnerIdentity | undefined>,
): void {
  app.addHook("onRequest", async (request, reply) => {
    const config = request.routeOptions.config;
    if (config.public || request.routeOptions.url === undefined) return;
    const header = request.headers.authorization;
    const match = header ? BEARER.exec(header) : null;
    // The runner protocol takes runner tokens (rnr_…) only, and user tokens never reach it.
    if (config.runner) {
      const runner = match ? await authenticateRunner(match[1]!) : undefined;
      if (!runner) {
        reply.header("www-authenticate", 'Bearer realm="runner"');
        return sendError(
          reply,
          "unauthenticated",
          header ? "runner token is unknown, revoked or was rotated" : "Authorization: Bearer rnr_… runner token required",
        );
      }
      request.runner = runner;
      return;
    }
    const principal = match ? await authenticate(match[1]!) : undefined;
    if (!principal) {
      reply.header("www-authenticate", 'Bearer realm="api"');
      return sendError(reply, "unauthenticated", header ? "token is unknown, revoked or expired" : "Authorization: Bearer token required");
    }
    if (principal.passwordChangeRequired && !config.duringPasswordChange) {
      return sendError(reply, "password_change_required", "this session may only change the password: PUT /api/users/me/password");
    }
    request.principal = principal;
  });
}
