import type { FastifyInstance } from "fastify";
import type { AccessTokens } from "../tenancy/tokens.js";
import { sendError } from "./error-handler.js";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Every route but the public ones needs `Authorization: Bearer iap_…`. Missing, unknown,
 * revoked or expired tokens get 401; roles are checked by the capability.
 */
export function installAuth(app: FastifyInstance, tokens: AccessTokens): void {
  app.addHook("onRequest", async (request, reply) => {
    if (request.routeOptions.config.public || request.routeOptions.url === undefined) return;
    const header = request.headers.authorization;
    const match = header ? BEARER.exec(header) : null;
    const principal = match ? await tokens.authenticate(match[1]!) : undefined;
    if (!principal) {
      reply.header("www-authenticate", 'Bearer realm="api"');
      return sendError(reply, "unauthenticated", header ? "token is unknown, revoked or expired" : "Authorization: Bearer token required");
    }
    request.principal = principal;
  });
}
