import { BRANCH_IMPROVE_BOT } from "../../../bots/bot-id.js";
import type { WebhookConfig } from "../../../webhooks/webhook-config.js";
import { parseCommand, type ParsedCommand } from "../../pipeline/command-note.js";
import { identityLogins, type DeliveryContext } from "../../pipeline/delivery-context.js";
import { filtered, invalid, type DeliveryDecision } from "../../pipeline/delivery-decision.js";
import type { ForgeEvent } from "../../../forges/shared/delivery-event.js";
import { projectAllowed } from "../../pipeline/filters.js";
import { noteKey, withBotSegment } from "../../pipeline/idempotency-keys.js";
import { issueBaseVars } from "../issue-label-lane.js";
import { layerVars } from "../../pipeline/launch-vars.js";
import { issueSubjectId, pullSubjectId } from "../../pipeline/subject-id.js";
import { decideApproval } from "./approval-lane.js";
import { CONVERSE_BOT, type CommandRouting, isApproval, knownCommands, routeCommand } from "./command-registry.js";
import type { ForgeResponse, PendingBot, PermissionGate } from "../../pipeline/forge-check.js";
import { refusedReason, replierGate } from "./replier-gate.js";

/** The pull request's page: GitLab's note URL carries the note as its fragment. */
export function subjectUrl(event: ForgeEvent): string | undefined {
  return event.url?.replace(/#note_\d+$/, "");
}

/** The variables every comment-launched run carries (spec, forge_a Note Hook). */
export function triggerVars(event: ForgeEvent, command: ParsedCommand | undefined): Record<string, string> {
  const vars: Record<string, string> = { trigger_note: event.commentBody ?? "" };
  if (command) Object.assign(vars, { trigger_command: command.name, trigger_args: command.args });
  if (event.actorLogin !== undefined) vars.replier = event.actorLogin;
  if (event.threadId !== undefined) vars.discussion_id = event.threadId;
  const url = subjectUrl(event);
  if (url !== undefined) vars.pr_url = url;
  return vars;
}

/**
 * A slash command in a comment or note: on a pull/merge request through the command registry,
 * on an issue the same registry with surface=issue (the bot opens an MR linking the issue).
 * The pure half: it names the replier gate and the pull request proof for the forge step.
 */
export function decideCommand(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): DeliveryDecision {
  const command = parseCommand(event.commentBody);
  if (command === undefined) return filtered("comment is not a command (its first line does not start with /)");
  const { projectPath: path, number, commentId } = event;
  if (path === undefined || number === undefined || commentId === undefined) {
    return invalid("bad_payload", "comment payload lacks project path, number or comment id");
  }
  const onPull = event.commentOn === "pull_request";
  const what = `/${command.name}`;
  const replier = replierGate(config, context, event.actorLogin, what);
  if (!replier.ok) return filtered(replier.reason);
  if (isApproval(command)) return decideApproval(config, event, context, command, replier.gate);
  if (event.state !== undefined && event.state !== "open") return filtered(`${what}: the ${onPull ? "pull request" : "issue"} is not open`);
  const project = projectAllowed(config.project_allowlist, path);
  if (!project.pass) return filtered(project.reason);
  const routing = routeCommand(config, context.isKnownBot, command);
  const respond = responseOf(config, event, what);
  if (!routing.ok) {
    if (routing.unknown && respond?.explain) return explainUnknown(config, event, context, routing.reason, respond);
    return filtered(routing.reason);
  }

  const where = { path, number, commentId, onPull, what };
  return commandCheck(config, event, context, command, routing, replier.gate, respond, where);
}

/** The forge step's check of a routed command: the replier gate, the pull request's proof, and each bot's pending launch. */
function commandCheck(
  config: WebhookConfig,
  event: ForgeEvent,
  context: DeliveryContext,
  command: ParsedCommand,
  routing: Extract<CommandRouting, { ok: true }>,
  gate: PermissionGate | undefined,
  respond: ForgeResponse | undefined,
  where: { path: string; number: number; commentId: string; onPull: boolean; what: string },
): DeliveryDecision {
  const { path, number, commentId, onPull, what } = where;
  const key = noteKey(config.tenant_id, config.id, event.projectId ?? path, commentId);
  const pullSubject = pullSubjectId(event.provider, path, number);
  const base = commandBaseVars(event, command, onPull);
  const bots: PendingBot[] = routing.bots.map((bot) => pendingBot(bot, base, routing.fanOut ? withBotSegment(key, bot.botId) : key, onPull));
  // A question is bound to its comment under the pull request; a review or an improvement to the pull request.
  const asks = onPull && routing.bots.every((b) => b.botId === CONVERSE_BOT);
  return {
    kind: "forge",
    check: {
      lane: "command",
      provider: event.provider,
      repo: path,
      number,
      gate,
      refusedReason: refusedReason(config, event.actorLogin ?? "", what),
      provePull: onPull,
      ...(respond && { respond }),
      ...(bots.some((b) => b.improve) && { priorReviewBy: [...identityLogins(config, context)] }),
      threadContext: onPull && command.args !== "" ? event.threadId : undefined,
      pending: {
        bots,
        subjectId: commandSubjectId(event, path, number, commentId, onPull, asks),
        parentSubjectId: asks ? pullSubject : undefined,
        projectPath: path,
        repoUrl: event.repoUrl,
        repoRef: onPull ? event.headRef : event.defaultBranch,
        subjectSha: event.headSha,
        ...(event.title !== undefined && { title: event.title }),
      },
    },
  };
}

/** A command's own launch vars: on a pull request the trigger's, reviewed inline; on an issue the issue's too, with surface=issue. */
function commandBaseVars(event: ForgeEvent, command: ParsedCommand, onPull: boolean): Record<string, string> {
  if (onPull) return { ...triggerVars(event, command), post_to_board: "false", pr_review_mode: "inline" };
  const base: Record<string, string> = { ...issueBaseVars(event), ...triggerVars(event, command), surface: "issue" };
  // GitLab's note URL names the note; the issue is the page without it.
  if (base.pr_url !== undefined) {
    base.source_issue_ref = base.pr_url;
    delete base.pr_url;
  }
  return base;
}

/** One routed bot's pending launch: a bare command re-reviews; the branch-improvement bot on a pull request improves it. */
function pendingBot(
  bot: { botId: string; when?: string; ruleVars: Record<string, string> },
  base: Record<string, string>,
  idempotencyKey: string,
  onPull: boolean,
): PendingBot {
  return {
    botId: bot.botId,
    vars: layerVars(base, bot.when === "when_args_empty" && onPull ? { re_review: "true" } : {}, bot.ruleVars),
    idempotencyKey,
    improve: onPull && bot.botId === BRANCH_IMPROVE_BOT,
  };
}

/** The issue; a question's own comment under the pull request; or the pull request. */
function commandSubjectId(event: ForgeEvent, path: string, number: number, commentId: string, onPull: boolean, asks: boolean): string {
  if (!onPull) return issueSubjectId(event.provider, path, number);
  const pullSubject = pullSubjectId(event.provider, path, number);
  return asks ? `${pullSubject}/note:${commentId}` : pullSubject;
}

/** Where the command may be answered: its comment or note, on a pull request or an issue. */
function responseOf(config: WebhookConfig, event: ForgeEvent, command: string): ForgeResponse | undefined {
  if (!config.acknowledge_commands && !config.explain_refusals) return undefined;
  if (event.commentId === undefined) return undefined;
  return {
    commentId: event.commentId,
    ...(event.commentOn === "issue" && { onIssue: true }),
    ...(event.threadId !== undefined && { threadId: event.threadId }),
    acknowledge: config.acknowledge_commands,
    explain: config.explain_refusals,
    command,
  };
}

/** An unknown command, explained (with the commands this webhook knows) to a commenter who passes the replier gate. */
function explainUnknown(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext, reason: string, respond: ForgeResponse): DeliveryDecision {
  const replier = replierGate(config, context, event.actorLogin, respond.command);
  if (!replier.ok || event.projectPath === undefined || event.number === undefined) return filtered(reason);
  const known = knownCommands(config, context.isKnownBot).map((c) => `\`/${c}\``);
  return {
    kind: "forge",
    check: {
      lane: "command",
      provider: event.provider,
      repo: event.projectPath,
      number: event.number,
      gate: replier.gate,
      refusedReason: reason,
      provePull: false,
      pending: { bots: [], subjectId: "", projectPath: event.projectPath },
      respond: { ...respond, acknowledge: false },
      refusal: {
        reason,
        reply: `\`${respond.command}\` is not a command here. ${known.length > 0 ? `Known: ${known.join(", ")}.` : "This webhook answers none."}`,
      },
    },
  };
}
