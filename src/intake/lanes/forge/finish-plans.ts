import type { PullRequestFacts } from "../../../forges/shared/forge-client.js";
import type { WebhookConfig } from "../../../webhooks/webhook-config.js";
import { layerVars } from "../../pipeline/launch-vars.js";
import type { LaunchPlan } from "../../pipeline/launch-plan.js";
import { scopeNotes } from "../review-lane.js";
import type { ForgeCheck } from "../../pipeline/forge-check.js";

/** Forge text put into run variables stays within the generic lane's 4 KiB. */
const VAR_MAX = 4_000;

export function capped(text: string): string {
  return text.length > VAR_MAX ? `${text.slice(0, VAR_MAX - 1)}…` : text;
}

/** What the forge step read beyond the pull request. */
export interface ForgeReads {
  threadContext?: string | undefined;
  priorReview?: string | undefined;
}

/** What the forge proved, as launch vars: the pull request's base and scope notes, what was read, and `/improve`'s target. */
function provenVars(config: WebhookConfig, check: ForgeCheck, improve: boolean, pull: PullRequestFacts | undefined, read: ForgeReads): Record<string, string> {
  const proven: Record<string, string> = {};
  if (pull) {
    proven.base_ref = pull.baseRef;
    proven.scope_notes = scopeNotes({ provider: check.provider, title: check.pending.title, headRef: pull.headRef, baseRef: pull.baseRef }, check.number);
  }
  if (read.threadContext !== undefined) proven.thread_context = read.threadContext;
  if (improve && read.priorReview !== undefined) proven.prior_review = read.priorReview;
  if (improve && pull && config.branch_improve_as_pr) Object.assign(proven, { open_mr: "true", mr_base: pull.headRef });
  return proven;
}

/**
 * The plans, finished with what the forge proved: the head branch and sha and base_ref from the
 * pull request (under the handler's own variables), `/improve`'s target, and the webhook's layers on top.
 */
export function finishPlans(config: WebhookConfig, check: ForgeCheck, pull: PullRequestFacts | undefined, read: ForgeReads = {}): LaunchPlan[] {
  const p = check.pending;
  return p.bots.map((bot) => {
    const proven = provenVars(config, check, bot.improve, pull, read);
    return {
      botId: bot.botId,
      vars: layerVars(proven, bot.vars, config.operator_launch_vars, config.launch_vars),
      idempotencyKey: bot.idempotencyKey,
      subjectId: p.subjectId,
      ...(p.parentSubjectId !== undefined && { parentSubjectId: p.parentSubjectId }),
      subjectSha: pull?.headSha ?? p.subjectSha,
      projectPath: p.projectPath,
      ...(p.repoUrl !== undefined && { repoUrl: p.repoUrl }),
      ...((pull?.headRef ?? p.repoRef) !== undefined && { repoRef: pull?.headRef ?? p.repoRef }),
      ...(p.collapse && { collapse: true }),
      ...(p.card && { card: p.card }),
    };
  });
}
