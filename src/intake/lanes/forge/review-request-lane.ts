import type { WebhookConfig } from "../../../webhooks/webhook-config.js";
import { identityLogins, type DeliveryContext } from "../../pipeline/delivery-context.js";
import { filtered, type DeliveryDecision } from "../../pipeline/delivery-decision.js";
import type { ForgeEvent } from "../../../forges/shared/delivery-event.js";
import { normaliseLogin } from "../../pipeline/filters.js";
import { decideReview } from "../review-lane.js";
import { refusedReason, replierGate } from "./replier-gate.js";

/** Whether the click asks the bot: forge_b/forge_c's requested_reviewer, forge_a's changes.reviewers. */
export function requestsBot(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): boolean {
  const bots = identityLogins(config, context);
  const isBot = (login: string) => bots.has(normaliseLogin(login));
  if (event.provider !== "forge_a") return event.requestedReviewer !== undefined && isBot(event.requestedReviewer);
  const reviewers = event.changes.reviewers;
  if (!reviewers) return false;
  const had = new Set(reviewers.previous.map(normaliseLogin));
  return reviewers.reRequested.some(isBot) || reviewers.current.some((l) => isBot(l) && !had.has(normaliseLogin(l)));
}

/**
 * Review rule 5: a re-requested review of the bot. Open pull requests only, never
 * self-triggering, replier-gated, not exempt from hold labels; otherwise the review lane's own
 * filters. Its key is the head's review key salted with updated_at, so a click after the head's
 * review finished reviews again while a redelivered click stays one run.
 */
export function decideReviewRequest(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): DeliveryDecision {
  const what = "review re-request";
  if (event.state !== undefined && event.state !== "open") return filtered(`${what}: the pull request is not open`);
  const replier = replierGate(config, context, event.actorLogin, what);
  if (!replier.ok) return filtered(replier.reason);
  const review = decideReview(config, event, context, false);
  if (review.kind !== "launch") return review;
  const salt = event.updatedAt ?? event.headSha ?? "";
  const [first] = review.launches;
  if (first === undefined || event.number === undefined || event.projectPath === undefined) return filtered(`${what}: nothing to launch`);
  return {
    kind: "forge",
    check: {
      lane: "review_request",
      provider: event.provider,
      repo: event.projectPath,
      number: event.number,
      gate: replier.gate,
      // An unauthorised click is demoted to the automatic lanes; none admits a review request.
      refusedReason: `${refusedReason(config, event.actorLogin ?? "", what)}; no automatic lane admits this event`,
      // GitLab's hook may name neither project: the API proves it (fail closed).
      provePull: event.provider === "forge_a",
      pending: {
        bots: review.launches.map((plan) => ({
          botId: plan.botId,
          vars: plan.vars,
          idempotencyKey: `${plan.idempotencyKey}|rr:${salt}`,
          improve: false,
        })),
        subjectId: first.subjectId,
        projectPath: first.projectPath,
        repoUrl: first.repoUrl,
        repoRef: first.repoRef,
        subjectSha: first.subjectSha,
        // Spec rule 5: on forge_b a click while the subject's review runs folds into it.
        collapse: event.provider === "forge_b",
      },
    },
  };
}
