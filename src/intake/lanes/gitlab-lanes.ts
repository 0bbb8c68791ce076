import type { WebhookConfig } from "../../webhooks/webhook-config.js";
import { isCommandNote } from "../pipeline/command-note.js";
import type { DeliveryContext } from "../pipeline/delivery-context.js";
import { filtered, type DeliveryDecision } from "../pipeline/delivery-decision.js";
import type { ForgeEvent } from "../../forges/shared/delivery-event.js";
import { decideCommand } from "./forge/command-lane.js";
import { decideReviewRequest, requestsBot } from "./forge/review-request-lane.js";
import { decideThreadReply } from "./forge/thread-reply-lane.js";
import { decideIssueLabel } from "./issue-label-lane.js";
import { decideReview } from "./review-lane.js";
import { decideGate, waitsForGate } from "./gate-lane.js";

/** GitLab Merge Request Hook actions: open, reopen, and update from draft to ready. */
function decideMergeRequest(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): DeliveryDecision {
  switch (event.action) {
    case "open":
    case "reopen":
      return waitsForGate(context, event) ?? decideReview(config, event, context, false);
    case "update": {
      const draft = event.changes.draft;
      if (draft?.previous === true && draft.current === false) return waitsForGate(context, event) ?? decideReview(config, event, context, false);
      if (requestsBot(config, event, context)) return decideReviewRequest(config, event, context);
      return filtered("merge_request update without draft→ready does not re-trigger");
    }
    default:
      return filtered(`merge_request ${event.action || "(no action)"} does not trigger`);
  }
}

/** Note Hook routes, in order: a command (issue or MR), then a plain reply in the bot's MR thread. */
function decideNote(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): DeliveryDecision {
  // GitLab 16+ says create or update; older instances send no action and hook only creations.
  if (event.action !== "" && event.action !== "create") return filtered(`note ${event.action} does not trigger`);
  if (event.commentOn !== "pull_request" && event.commentOn !== "issue") return filtered(`notes on a ${event.commentOn ?? "(unknown)"} do not trigger`);
  if (isCommandNote(event.commentBody)) return decideCommand(config, event, context);
  if (event.commentOn === "issue") return filtered("a non-command issue note does not trigger");
  return decideThreadReply(config, event, context);
}

/** Events of GitLab, after push and the event allowlist. */
export function decideGitlab(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): DeliveryDecision {
  switch (event.kind) {
    case "merge_request":
      return decideMergeRequest(config, event, context);
    case "note":
      return decideNote(config, event, context);
    case "issues":
      return decideIssueLabel(config, event, context);
    case "gate":
      return decideGate(config, event, context);
    default:
      return filtered(`unhandled event: ${event.eventName || "(no event header)"}`);
  }
}
