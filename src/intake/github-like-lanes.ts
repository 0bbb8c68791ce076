import type { WebhookConfig } from "../webhooks/webhook-config.js";
import type { DeliveryContext } from "./delivery-context.js";
import { filtered, invalid, NEEDS_FORGE_API, type DeliveryDecision } from "./delivery-decision.js";
import type { ForgeEvent } from "./delivery-event.js";
import { decideIssueLabel } from "./issue-label-lane.js";
import { decideReview } from "./review-lane.js";
import { pullSubjectId } from "./subject-id.js";

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
      return decideReview(config, event, context, false);
    case "ready_for_review":
      // Forgejo/Gitea have no such action; marking ready arrives as edited.
      return event.provider === "forge_b" ? decideReview(config, event, context, false) : filtered("pull_request ready_for_review is not a forge_c action");
    case "synchronize":
      return config.review_on_sync ? decideReview(config, event, context, true) : filtered("synchronize: review_on_sync is off");
    case "review_requested":
      return filtered(NEEDS_FORGE_API.reviewRequest);
    case "dequeued":
      return filtered(NEEDS_FORGE_API.mergeQueue);
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
      return config.auto_implement_on_open ? filtered(NEEDS_FORGE_API.trustedAuthor) : filtered("issues opened: auto_implement_on_open is off");
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
    case "pull_request_comment":
    case "note":
      return filtered(NEEDS_FORGE_API.command);
    case "pull_request_review_comment":
      return filtered(NEEDS_FORGE_API.threadReply);
    default:
      return filtered(`unhandled event: ${event.eventName || "(no event header)"}`);
  }
}
