import type { FastifyReply } from "fastify";
import type { LaunchDenial } from "../admission/decide-launch.js";
import { sendAnswer, type Answer } from "./error-handler.js";

/**
 * The spec's launch denial envelope `{error, detail, reset_at?}` with the gate's status: its
 * own shape, sharing only the `error` and `detail` keys with the generic error body.
 */
export function denialAnswer(denial: LaunchDenial): Answer {
  const body =
    denial.resetAt === undefined ? { error: denial.error, detail: denial.detail } : { error: denial.error, detail: denial.detail, reset_at: denial.resetAt };
  return { status: denial.status, body, retryAfter: denial.retryAfter };
}

export function sendDenial(reply: FastifyReply, denial: LaunchDenial) {
  return sendAnswer(reply, denialAnswer(denial));
}
