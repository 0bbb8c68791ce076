import { BRANCH_IMPROVE_BOT } from "../../bots/bot-id.js";
import type { WebhookConfig } from "../../webhooks/webhook-config.js";
import { identityLogins, type DeliveryContext } from "../pipeline/delivery-context.js";
import { filtered, invalid, type DeliveryDecision, type LaunchPlan } from "../pipeline/delivery-decision.js";
import type { ForgeEvent } from "../../forges/shared/delivery-event.js";
import { authorAllowed, normaliseLogin, notFork, notHeld, projectAllowed } from "../pipeline/filters.js";
import { forgejoPullKey, githubPullKey, mergeRequestKey, withBotSegment } from "../pipeline/idempotency-keys.js";
import { layerVars } from "../pipeline/launch-vars.js";
import { routeBots } from "../pipeline/route-bots.js";
import { pullSubjectId } from "../pipeline/subject-id.js";

const TITLE_MAX = 200;

/**
 * scope_notes tells the review bot what it is looking at: the PR/MR, its title and the
 * branches, e.g. `PR #2 "Update README": changes into master`.
 */
export function scopeNotes(event: Pick<ForgeEvent, "provider" | "title" | "headRef" | "baseRef">, number: number): string {
  const ref = event.provider === "forge_a" ? `MR !${number}` : `PR #${number}`;
  const raw = (event.title ?? "").replace(/\s+/g, " ").trim();
  const title = raw.length > TITLE_MAX ? `${raw.slice(0, TITLE_MAX - 1)}…` : raw;
  return `${ref} "${title}": ${event.headRef ?? "?"} into ${event.baseRef ?? "?"}`;
}

/** The handler-derived base of a review launch (spec: forge_a variables, shared by all forges). */
export function reviewBaseVars(event: ForgeEvent, number: number): Record<string, string> {
  const vars: Record<string, string> = {
    scope_notes: scopeNotes(event, number),
    post_to_board: "false",
    pr_review_mode: "inline",
  };
  if (event.url !== undefined) vars.pr_url = event.url;
  if (event.baseRef !== undefined) vars.base_ref = event.baseRef;
  return vars;
}

export function reviewKey(config: WebhookConfig, event: ForgeEvent, path: string, number: number, sha: string): string | undefined {
  switch (event.provider) {
    case "forge_a":
      return event.projectId === undefined ? undefined : mergeRequestKey(config.tenant_id, config.id, event.projectId, number, sha);
    case "forge_b":
      return githubPullKey(config.tenant_id, config.id, path, number, sha);
    case "forge_c":
      return forgejoPullKey(config.tenant_id, config.id, path, number, sha);
  }
}

/**
 * The automatic PR/MR review lane: open, reopen, ready, and synchronize (deferred when a
 * debounce is set). Reviewability filters first, then routing, then one plan per bot.
 */
export function decideReview(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext, deferrable: boolean): DeliveryDecision {
  const { projectPath: path, number, headSha: sha } = event;
  if (path === undefined || number === undefined || sha === undefined) {
    return invalid("bad_payload", "pull request payload lacks project path, number or head sha");
  }
  const key = reviewKey(config, event, path, number, sha);
  if (key === undefined) return invalid("bad_payload", "merge request payload lacks project id");

  const project = projectAllowed(config.project_allowlist, path);
  if (!project.pass) return filtered(project.reason);
  // GitLab: a payload naming neither project passes here; the API-side lanes fail closed.
  const fork = notFork(event, event.provider === "forge_a");
  if (!fork.pass) return filtered(fork.reason);
  if (event.draft) return filtered("draft: drafts never auto-launch");
  if (event.authorLogin !== undefined && identityLogins(config, context).has(normaliseLogin(event.authorLogin))) {
    return filtered(`opened by the service's own forge bot: ${event.authorLogin}`);
  }
  const author = authorAllowed(config.author_allowlist, event.authorLogin);
  if (!author.pass) return filtered(author.reason);
  const hold = notHeld(config.hold_labels, event.labels);
  if (!hold.pass) return filtered(hold.reason);

  const routing = routeBots(config, context.isKnownBot, {
    lane: "forge",
    kind: event.kind,
    author: event.authorLogin,
    labels: event.labels,
  });
  if (!routing.ok) return routing.decision;
  // Review lane rule 1: opening a PR is review-only, never the mutating branch-improvement bot.
  const reviewers = routing.bots.filter((bot) => bot.botId !== BRANCH_IMPROVE_BOT);
  if (reviewers.length === 0) return filtered("the pull request review lane never launches the branch-improvement bot");
  const base = reviewBaseVars(event, number);
  const launches: LaunchPlan[] = reviewers.map((bot) => ({
    botId: bot.botId,
    vars: layerVars(base, bot.ruleVars, config.operator_launch_vars, config.launch_vars),
    idempotencyKey: routing.fanOut ? withBotSegment(key, bot.botId) : key,
    subjectId: pullSubjectId(event.provider, path, number),
    subjectSha: sha,
    projectPath: path,
    repoUrl: event.repoUrl,
    repoRef: event.headRef,
  }));
  if (deferrable && context.syncDebounceMs > 0) return { kind: "defer", launches, eventAt: event.eventAt };
  return { kind: "launch", launches };
}
