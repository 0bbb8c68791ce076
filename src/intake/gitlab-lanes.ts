import type { WebhookConfig } from "../webhooks/webhook-config.js";
import { isCommandNote } from "./command-note.js";
import { identityLogins, type DeliveryContext } from "./delivery-context.js";
import { filtered, NEEDS_FORGE_API, type DeliveryDecision } from "./delivery-decision.js";
import type { ForgeEvent } from "./delivery-event.js";
import { normaliseLogin } from "./filters.js";
import { decideIssueLabel } from "./issue-label-lane.js";
import { decideReview } from "./review-lane.js";

/** changes.reviewers re-requests the bot account, or newly adds it. */
function reRequestsBot(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): boolean {
  const reviewers = event.changes.reviewers;
  if (!reviewers) return false;
  const bots = identityLogins(config, context);
  const had = new Set(reviewers.previous.map(normaliseLogin));
  return (
    reviewers.reRequested.some((l) => bots.has(normaliseLogin(l))) || reviewers.current.some((l) => bots.has(normaliseLogin(l)) && !had.has(normaliseLogin(l)))
  );
}

/** GitLab Merge Request Hook actions: open, reopen, and update from draft to ready. */
function decideMergeRequest(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): DeliveryDecision {
  switch (event.action) {
    case "open":
    case "reopen":
      return decideReview(config, event, context, false);
    case "update": {
      const draft = event.changes.draft;
      if (draft?.previous === true && draft.current === false) return decideReview(config, event, context, false);
      if (reRequestsBot(config, event, context)) return filtered(NEEDS_FORGE_API.reviewRequest);
      return filtered("merge_request update without draft→ready does not re-trigger");
    }
    default:
      return filtered(`merge_request ${event.action || "(no action)"} does not trigger`);
  }
}

/** Events of GitLab, after push and the event allowlist. */
export function decideGitlab(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): DeliveryDecision {
  switch (event.kind) {
    case "merge_request":
      return decideMergeRequest(config, event, context);
    case "note":
      return filtered(isCommandNote(event.commentBody) ? NEEDS_FORGE_API.command : NEEDS_FORGE_API.threadReply);
    case "issues":
      return decideIssueLabel(config, event, context);
    default:
      return filtered(`unhandled event: ${event.eventName || "(no event header)"}`);
  }
}
