import type { WebhookConfig } from "../../../webhooks/webhook-config.js";
import type { ParsedCommand } from "../../pipeline/command-note.js";
import type { DeliveryContext } from "../../pipeline/delivery-context.js";
import { filtered, type DeliveryDecision } from "../../pipeline/delivery-decision.js";
import type { ForgeEvent } from "../../../forges/shared/delivery-event.js";
import type { PermissionGate } from "../../pipeline/forge-check.js";
import { refusedReason } from "./replier-gate.js";
import { issueOpenedPlans } from "./trusted-author-lane.js";

/** The reason after `/approve`, or after `/<command> approve`. */
export function approvalReason(command: ParsedCommand): string {
  return (command.name === "approve" ? command.args : command.args.replace(/^approve\b/i, "")).trim();
}

/**
 * The approve subcommand, taken before routing: on an issue the auto-implement lane held for an
 * untrusted author (needs:approval), a commenter who passes the replier gate releases it, under
 * the lane's own key (approving twice, or an issue already launched, is a duplicate). Hold
 * labels do not stop it: it is a manual action. Nothing else waits for an approval here.
 */
export function decideApproval(
  config: WebhookConfig,
  event: ForgeEvent,
  context: DeliveryContext,
  command: ParsedCommand,
  gate: PermissionGate | undefined,
): DeliveryDecision {
  const what = `/${command.name}`;
  if (event.commentOn !== "issue") return filtered(`${what} approve: nothing waits for an approval on a pull request`);
  // Only forge_b/forge_c have the issue-opened lane (spec).
  if (event.provider === "forge_a" || !config.auto_implement_on_open)
    return filtered(`${what} approve: nothing waits for an approval (auto_implement_on_open is off)`);
  const plans = issueOpenedPlans(config, event, context, true);
  if (!plans.ok) return plans.decision;
  const approval: Record<string, string> = { approved_by: event.actorLogin ?? "" };
  const reason = approvalReason(command);
  if (reason !== "") approval.approval_reason = reason;
  return {
    kind: "forge",
    check: {
      lane: "approval",
      provider: event.provider,
      repo: plans.path,
      number: plans.number,
      gate,
      refusedReason: refusedReason(config, event.actorLogin ?? "", `${what} approve`),
      provePull: false,
      pending: {
        bots: plans.launches.map((l) => ({ botId: l.botId, vars: { ...approval, ...l.vars }, idempotencyKey: l.idempotencyKey, improve: false })),
        subjectId: plans.launches[0]?.subjectId ?? "",
        projectPath: plans.path,
        repoUrl: event.repoUrl,
        repoRef: event.defaultBranch,
        ...(plans.launches[0]?.card && { card: { ...plans.launches[0].card, approval } }),
      },
    },
  };
}
