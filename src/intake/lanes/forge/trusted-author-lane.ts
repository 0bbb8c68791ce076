import type { WebhookConfig } from "../../../webhooks/webhook-config.js";
import type { DeliveryContext } from "../../pipeline/delivery-context.js";
import { filtered, invalid, type DeliveryDecision } from "../../pipeline/delivery-decision.js";
import type { ForgeEvent } from "../../../forges/shared/delivery-event.js";
import { normaliseLogin, notHeld, projectAllowed } from "../../pipeline/filters.js";
import { issueOpenedKey, withBotSegment } from "../../pipeline/idempotency-keys.js";
import { issueBaseVars, issueCard } from "../issue-label-lane.js";
import { layerVars } from "../../pipeline/launch-vars.js";
import { routeBots } from "../../pipeline/route-bots.js";
import type { LaunchPlan } from "../../pipeline/launch-plan.js";
import { issueSubjectId } from "../../pipeline/subject-id.js";

/** author_association values that say the author belongs to the repository. */
const TRUSTED_ASSOCIATIONS = new Set(["OWNER", "MEMBER", "COLLABORATOR"]);

/**
 * The plans of the auto-implement lane for an open issue: project allowlist, hold labels (not
 * for a manual approval, which a hold never stops), routing, one key per issue.
 */
export function issueOpenedPlans(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext, manual: boolean): PlansOrDecision {
  const { projectPath: path, number } = event;
  if (path === undefined || number === undefined) return { ok: false, decision: invalid("bad_payload", "issue payload lacks project path or number") };
  if (event.state !== "open") return { ok: false, decision: filtered("issue is not open") };
  const project = projectAllowed(config.project_allowlist, path);
  if (!project.pass) return { ok: false, decision: filtered(project.reason) };
  const hold = manual ? { pass: true as const } : notHeld(config.hold_labels, event.labels);
  if (!hold.pass) return { ok: false, decision: filtered(hold.reason) };
  const routing = routeBots(config, context.isKnownBot, { lane: "forge", kind: "issues", author: event.authorLogin, labels: event.labels });
  if (!routing.ok) return { ok: false, decision: routing.decision };
  const key = issueOpenedKey(config.tenant_id, config.id, path, number);
  const base = issueBaseVars(event);
  const launches = routing.bots.map((bot) => ({
    botId: bot.botId,
    vars: layerVars(base, bot.ruleVars, config.operator_launch_vars, config.launch_vars),
    idempotencyKey: routing.fanOut ? withBotSegment(key, bot.botId) : key,
    subjectId: issueSubjectId(event.provider, path, number),
    projectPath: path,
    ...(event.repoUrl !== undefined && { repoUrl: event.repoUrl }),
    ...(event.defaultBranch !== undefined && { repoRef: event.defaultBranch }),
    card: issueCard(event, issueSubjectId(event.provider, path, number)),
  }));
  return { ok: true, launches, path, number };
}

export type PlansOrDecision = { ok: true; launches: LaunchPlan[]; path: string; number: number } | { ok: false; decision: DeliveryDecision };

/**
 * forge_b/forge_c `issues` opened with auto_implement_on_open: the author must be on
 * author_allowlist, carry a trusted author_association, or (asked of the forge) hold a role
 * at least min_replier_role. An author the payload does not name is untrusted (fail closed).
 */
export function decideIssueOpened(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): DeliveryDecision {
  if (!config.auto_implement_on_open) return filtered("issues opened: auto_implement_on_open is off");
  const author = event.authorLogin;
  const plans = issueOpenedPlans(config, event, context, false);
  if (!plans.ok) return plans.decision;
  if (author === undefined) return { ...filtered("issue opened by an author the payload does not name: untrusted (needs:approval)"), held: plans.launches };
  const { launches, path, number } = plans;
  const listed = config.author_allowlist.some((a) => normaliseLogin(a) === normaliseLogin(author));
  if (listed || TRUSTED_ASSOCIATIONS.has((event.authorAssociation ?? "").toUpperCase())) return { kind: "launch", launches };
  return {
    kind: "forge",
    check: {
      lane: "trusted_author",
      provider: event.provider,
      repo: path,
      number,
      gate: { login: author, minRole: config.min_replier_role },
      refusedReason: `issue author ${author} is not trusted: not on author_allowlist, association ${event.authorAssociation ?? "unknown"}, role below ${config.min_replier_role} (needs:approval)`,
      provePull: false,
      pending: {
        bots: launches.map((l) => ({ botId: l.botId, vars: l.vars, idempotencyKey: l.idempotencyKey, improve: false })),
        subjectId: issueSubjectId(event.provider, path, number),
        projectPath: path,
        repoUrl: event.repoUrl,
        repoRef: event.defaultBranch,
        card: launches[0]?.card,
      },
    },
  };
}
