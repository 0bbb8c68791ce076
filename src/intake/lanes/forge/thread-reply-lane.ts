import type { WebhookConfig } from "../../../webhooks/webhook-config.js";
import { identityLogins, type DeliveryContext } from "../../pipeline/delivery-context.js";
import { filtered, invalid, type DeliveryDecision } from "../../pipeline/delivery-decision.js";
import type { ForgeEvent } from "../../../forges/shared/delivery-event.js";
import { projectAllowed } from "../../pipeline/filters.js";
import { noteKey, withBotSegment } from "../../pipeline/idempotency-keys.js";
import { layerVars } from "../../pipeline/launch-vars.js";
import { botPermitted } from "../../pipeline/route-bots.js";
import { pullSubjectId } from "../../pipeline/subject-id.js";
import { triggerVars } from "./command-lane.js";
import { CONVERSE_BOT } from "./command-registry.js";
import { refusedReason, replierGate } from "./replier-gate.js";

/** The converse bot launches only where the webhook scopes it and the catalog knows it. */
const converseBotUsable = (config: WebhookConfig, context: DeliveryContext) => botPermitted(config, CONVERSE_BOT) && context.isKnownBot(CONVERSE_BOT);

/**
 * A plain reply in one of the bot's review threads launches the converse bot: forge_b's
 * pull_request_review_comment (a thread the bot opened) and forge_a's note in a discussion the
 * bot took part in. Loop-guarded and replier-gated here; the forge step proves the thread is
 * the bot's (human-to-human threads never trigger) and the pull request same-repo.
 */
export function decideThreadReply(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): DeliveryDecision {
  const what = "thread reply";
  if (!converseBotUsable(config, context)) return filtered(`${what}: the converse bot is not in bot_ids`);
  const { projectPath: path, number, commentId, threadId } = event;
  if (path === undefined || number === undefined || commentId === undefined) {
    return invalid("bad_payload", "comment payload lacks project path, number or comment id");
  }
  // A comment that opens a thread (GitHub: no in_reply_to_id) replies to nobody.
  if (threadId === undefined || threadId === commentId) return filtered(`${what}: the comment starts a thread, it replies in none`);
  const replier = replierGate(config, context, event.actorLogin, what);
  if (!replier.ok) return filtered(replier.reason);
  if (event.state !== undefined && event.state !== "open") return filtered(`${what}: the pull request is not open`);
  const project = projectAllowed(config.project_allowlist, path);
  if (!project.pass) return filtered(project.reason);

  const ruleVars = config.bot_rules?.find((r) => r.bot_id === CONVERSE_BOT)?.launch_vars ?? {};
  const key = noteKey(config.tenant_id, config.id, event.projectId ?? path, commentId);
  const pullSubject = pullSubjectId(event.provider, path, number);
  return {
    kind: "forge",
    check: {
      lane: "thread_reply",
      provider: event.provider,
      repo: path,
      number,
      gate: replier.gate,
      refusedReason: refusedReason(config, event.actorLogin ?? "", what),
      provePull: true,
      thread: { id: threadId, botLogins: [...identityLogins(config, context)], rule: event.provider === "forge_a" ? "took_part" : "opened" },
      pending: {
        bots: [
          {
            botId: CONVERSE_BOT,
            vars: layerVars(triggerVars(event, undefined), ruleVars),
            idempotencyKey: config.bot_rules !== null ? withBotSegment(key, CONVERSE_BOT) : key,
            improve: false,
          },
        ],
        subjectId: `${pullSubject}/note:${commentId}`,
        parentSubjectId: pullSubject,
        projectPath: path,
        repoUrl: event.repoUrl,
        repoRef: event.headRef,
        subjectSha: event.headSha,
        ...(event.title !== undefined && { title: event.title }),
      },
    },
  };
}
