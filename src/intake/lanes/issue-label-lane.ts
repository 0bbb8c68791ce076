import type { WebhookConfig } from "../../webhooks/webhook-config.js";
import type { DeliveryContext } from "../pipeline/delivery-context.js";
import { filtered, invalid, type DeliveryDecision, type LaunchPlan } from "../pipeline/delivery-decision.js";
import type { CardSeed } from "../pipeline/launch-plan.js";
import type { ForgeEvent } from "../../forges/shared/delivery-event.js";
import { labelAllowed, notHeld, projectAllowed } from "../pipeline/filters.js";
import { issueLabelKey, withBotSegment } from "../pipeline/idempotency-keys.js";
import { layerVars } from "../pipeline/launch-vars.js";
import { routeBots } from "../pipeline/route-bots.js";
import { issueSubjectId } from "../pipeline/subject-id.js";

/** feature_prompt, open_mr and source_issue_ref: the bot implements the issue and opens an MR/PR. */
export function issueBaseVars(event: ForgeEvent): Record<string, string> {
  const vars: Record<string, string> = {
    feature_prompt: `${event.title ?? ""}\n\n${event.body ?? ""}`,
    open_mr: "true",
  };
  if (event.url !== undefined) vars.source_issue_ref = event.url;
  return vars;
}

/** The issue's card on the team's board: its title, its text, and its URL (else its subject id). */
export function issueCard(event: ForgeEvent, subjectId: string): CardSeed {
  return { title: (event.title ?? "").trim() || subjectId, body: event.body ?? "", issueRef: event.url ?? subjectId };
}

/**
 * A label freshly applied to an open issue (GitHub `issues labeled`, GitLab Issue Hook
 * label diff) launches the webhook's bot. Not author-gated; hold labels apply.
 */
export function decideIssueLabel(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): DeliveryDecision {
  const applied = event.appliedLabels ?? [];
  if (applied.length === 0) return filtered("issue event added no label");
  const { projectPath: path, number } = event;
  if (path === undefined || number === undefined) return invalid("bad_payload", "issue payload lacks project path or number");
  if (event.state !== "open") return filtered("issue is not open");
  // Sorted so two labels applied together always pick the same key.
  const label = applied.filter((l) => labelAllowed(config.label_allowlist, l)).sort((a, b) => a.localeCompare(b))[0];
  if (label === undefined) return filtered(`label not in label_allowlist: ${applied.join(", ")}`);

  const project = projectAllowed(config.project_allowlist, path);
  if (!project.pass) return filtered(project.reason);
  const hold = notHeld(config.hold_labels, event.labels);
  if (!hold.pass) return filtered(hold.reason);

  const labels = [...(event.labels ?? []), ...applied];
  const routing = routeBots(config, context.isKnownBot, { lane: "forge", kind: "issues", author: event.authorLogin, labels });
  if (!routing.ok) return routing.decision;
  const projectRef = event.provider === "forge_a" ? (event.projectId ?? path) : path;
  const key = issueLabelKey(config.tenant_id, config.id, projectRef, number, label);
  const base = issueBaseVars(event);
  const launches: LaunchPlan[] = routing.bots.map((bot) => ({
    botId: bot.botId,
    vars: layerVars(base, bot.ruleVars, config.operator_launch_vars, config.launch_vars),
    idempotencyKey: routing.fanOut ? withBotSegment(key, bot.botId) : key,
    subjectId: issueSubjectId(event.provider, path, number),
    projectPath: path,
    repoUrl: event.repoUrl,
    repoRef: event.defaultBranch,
    card: issueCard(event, issueSubjectId(event.provider, path, number)),
  }));
  return { kind: "launch", launches };
}
