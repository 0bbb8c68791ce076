import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { RunnerIdentity } from "../runs/desk/runner-tokens.js";
import type { Principal } from "../tenancy/access.js";
import { sendError } from "./error-handler.js";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

const bearerToken = (header: string | undefined) => (header ? BEARER.exec(header)?.[1] : undefined);

function refuseUnauthenticated(reply: FastifyReply, sent: boolean) {
  reply.header("www-authenticate", 'Bearer realm="api"');
  return sendError(reply, "unauthenticated", sent ? "token is unknown, revoked or expired" : "Authorization: Bearer token required");
}

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
    const token = bearerToken(header);
    // The runner protocol takes runner tokens (rnr_…) only, and user tokens never reach it.
    if (config.runner) return authenticateRunnerRequest(request, reply, token, Boolean(header));
    const principal = token ? await authenticate(token) : undefined;
    if (!principal) return refuseUnauthenticated(reply, Boolean(header));
    if (principal.passwordChangeRequired && !config.duringPasswordChange) {
      return sendError(reply, "password_change_required", "this session may only change the password: PUT /api/users/me/password");
    }
    request.principal = principal;
  });

  async function authenticateRunnerRequest(request: FastifyRequest, reply: FastifyReply, token: string | undefined, sent: boolean) {
    const runner = token ? await authenticateRunner(token) : undefined;
    if (!runner) {
      reply.header("www-authenticate", 'Bearer realm="runner"');
      return sendError(
        reply,
        "unauthenticated",
        sent ? "runner token is unknown, revoked or was rotated" : "Authorization: Bearer rnr_… runner token required",
      );
    }
    request.runner = runner;
  }
}
