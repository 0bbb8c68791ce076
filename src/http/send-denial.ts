import type { FastifyReply } from "fastify";
import type { LaunchDenial } from "../admission/decide-launch.js";

/**
 * Sends the spec's launch denial envelope `{error, detail, reset_at?}` with the gate's status:
 * its own shape, sharing only the `error` and `detail` keys with the generic error body.
 */
export function sendDenial(reply: FastifyReply, denial: LaunchDenial) {
  if (denial.retryAfter !== undefined) reply.header("retry-after", String(denial.retryAfter));
  const body = denial.resetAt === undefined
    ? { error: denial.error, detail: denial.detail }
    : { error: denial.error, detail: denial.detail, reset_at: denial.resetAt };
  return reply.code(denial.status).send(body);
}
