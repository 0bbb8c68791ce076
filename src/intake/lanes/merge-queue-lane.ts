import { BRANCH_IMPROVE_BOT } from "../../bots/bot-id.js";
import type { WebhookConfig } from "../../webhooks/webhook-config.js";
import type { DeliveryContext } from "../pipeline/delivery-context.js";
import { filtered, invalid, type DeliveryDecision } from "../pipeline/delivery-decision.js";
import type { ForgeEvent } from "../../forges/shared/delivery-event.js";
import { authorAllowed, notFork, notHeld, projectAllowed } from "../pipeline/filters.js";
import { githubPullKey, healKey } from "../pipeline/idempotency-keys.js";
import { layerVars } from "../pipeline/launch-vars.js";
import { botPermitted } from "../pipeline/route-bots.js";
import { pullSubjectId } from "../pipeline/subject-id.js";

/** GitHub's dequeue reasons a commit on the branch can heal; the others (manual, queue cleared, merged) cannot. */
const HEALABLE = new Set(["MERGE_CONFLICT", "CI_FAILURE", "CI_TIMEOUT"]);

/**
 * A pull request the merge queue ejected for a healable reason: the branch-improvement bot,
 * once per head SHA (same-repo, project and author allowlists, hold labels, bot permitted).
 * GitHub's `pull_request` `dequeued` only: GitLab's merge trains and Forgejo send no such event.
 */
export function decideMergeQueueEjection(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): DeliveryDecision {
  if (event.provider !== "forge_b") return filtered("merge-queue ejection is a forge_b event");
  const reason = (event.dequeueReason ?? "").toUpperCase();
  if (!HEALABLE.has(reason)) return filtered(`dequeued for ${event.dequeueReason ?? "no stated reason"}: not healable`);
  const { projectPath: path, number, headSha: sha } = event;
  if (path === undefined || number === undefined || sha === undefined) {
    return invalid("bad_payload", "pull request payload lacks project path, number or head sha");
  }
  for (const check of [
    projectAllowed(config.project_allowlist, path),
    notFork(event, false),
    authorAllowed(config.author_allowlist, event.authorLogin),
    notHeld(config.hold_labels, event.labels),
  ]) {
    if (!check.pass) return filtered(check.reason);
  }
  if (!botPermitted(config, BRANCH_IMPROVE_BOT) || !context.isKnownBot(BRANCH_IMPROVE_BOT)) {
    return filtered(`merge-queue heal: the ${BRANCH_IMPROVE_BOT} bot is not in bot_ids`);
  }
  const base = healVars(event, reason);
  const ruleVars = config.bot_rules?.find((r) => r.bot_id === BRANCH_IMPROVE_BOT)?.launch_vars ?? {};
  const plan = {
    botId: BRANCH_IMPROVE_BOT,
    vars: layerVars(base, ruleVars, config.operator_launch_vars, config.launch_vars),
    idempotencyKey: healKey(githubPullKey(config.tenant_id, config.id, path, number, sha)),
    subjectId: pullSubjectId(event.provider, path, number),
    subjectSha: sha,
    projectPath: path,
    ...(event.repoUrl !== undefined && { repoUrl: event.repoUrl }),
    ...(event.headRef !== undefined && { repoRef: event.headRef }),
  };
  return { kind: "launch", launches: [plan] };
}

/** The heal's own launch vars: why it was ejected, and the pull request's address and base when the payload has them. */
function healVars(event: ForgeEvent, reason: string): Record<string, string> {
  const base: Record<string, string> = { heal_reason: reason.toLowerCase() };
  if (event.url !== undefined) base.pr_url = event.url;
  if (event.baseRef !== undefined) base.base_ref = event.baseRef;
  return base;
}
