import type { WebhookConfig } from "../../webhooks/webhook-config.js";
import type { DeliveryContext } from "../pipeline/delivery-context.js";
import { filtered, invalid, type DeliveryDecision } from "../pipeline/delivery-decision.js";
import type { ForgeEvent } from "../../forges/shared/delivery-event.js";
import { decideCommand } from "./forge/command-lane.js";
import { decideReviewRequest, requestsBot } from "./forge/review-request-lane.js";
import { decideThreadReply } from "./forge/thread-reply-lane.js";
import { decideIssueOpened } from "./forge/trusted-author-lane.js";
import { decideIssueLabel } from "./issue-label-lane.js";
import { decideMergeQueueEjection } from "./merge-queue-lane.js";
import { decideReview } from "./review-lane.js";
import { decideGate, waitsForGate } from "./gate-lane.js";
import { pullSubjectId } from "../pipeline/subject-id.js";

/** forge_b (GitHub) and forge_c (Forgejo/Gitea) pull_request actions. */
function decidePullRequest(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): DeliveryDecision {
  switch (event.action) {
    case "closed": {
      if (event.projectPath === undefined || event.number === undefined) {
        return invalid("bad_payload", "pull request payload lacks project path or number");
      }
      return { kind: "stop", subjectId: pullSubjectId(event.provider, event.projectPath, event.number) };
    }
    case "opened":
    case "reopened":
      return waitsForGate(context, event) ?? decideReview(config, event, context, false);
    case "ready_for_review":
      // Forgejo/Gitea have no such action; marking ready arrives as edited.
      return event.provider === "forge_b"
        ? (waitsForGate(context, event) ?? decideReview(config, event, context, false))
        : filtered("pull_request ready_for_review is not a forge_c action");
    case "synchronize":
      if (!config.review_on_sync) return filtered("synchronize: review_on_sync is off");
      return waitsForGate(context, event) ?? decideReview(config, event, context, true);
    case "review_requested":
      return requestsBot(config, event, context)
        ? decideReviewRequest(config, event, context)
        : filtered(`review requested from ${event.requestedReviewer ?? "a team"}, not the bot`);
    case "dequeued":
      return decideMergeQueueEjection(config, event, context);
    case "edited":
      return filtered("pull_request edited does not trigger a review (re-trigger by reopening or by command)");
    default:
      return filtered(`pull_request ${event.action || "(no action)"} does not trigger`);
  }
}

function decideIssues(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): DeliveryDecision {
  switch (event.action) {
    case "labeled":
      return decideIssueLabel(config, event, context);
    case "opened":
      return decideIssueOpened(config, event, context);
    default:
      // Gitea's label_updated names no applied label, so it cannot prove a fresh label.
      return filtered(`issues ${event.action || "(no action)"} does not trigger`);
  }
}

/** Events of the GitHub-shaped forges, after ping, push and the event allowlist. */
export function decideGithubLike(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): DeliveryDecision {
  switch (event.kind) {
    case "pull_request":
      return decidePullRequest(config, event, context);
    case "issues":
      return decideIssues(config, event, context);
    case "gate":
      return decideGate(config, event, context);
    case "pull_request_comment":
    case "note":
      // An edited or deleted comment is not a new command.
      return event.action === "created" ? decideCommand(config, event, context) : filtered(`issue_comment ${event.action || "(no action)"} does not trigger`);
    case "pull_request_review_comment":
      // Spec: conversational review-thread replies are forge_b's only.
      if (event.provider !== "forge_b") return filtered("review-comment replies are a forge_b lane");
      return event.action === "created"
        ? decideThreadReply(config, event, context)
        : filtered(`pull_request_review_comment ${event.action || "(no action)"} does not trigger`);
    default:
      return filtered(`unhandled event: ${event.eventName || "(no event header)"}`);
  }
}
