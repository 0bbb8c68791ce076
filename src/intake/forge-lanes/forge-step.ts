import type { ForgeClient, ForgeError, PullRequestFacts, ThreadFacts } from "../../forge/forge-client.js";
import { roleAtLeast } from "../../forge/forge-roles.js";
import type { WebhookConfig } from "../../webhooks/webhook-config.js";
import { filtered, type FinalDecision } from "../delivery-decision.js";
import { normaliseLogin } from "../filters.js";
import { layerVars } from "../launch-vars.js";
import type { LaunchPlan } from "../launch-plan.js";
import type { ForgeCheck, ThreadCheck } from "./forge-check.js";
import type { WebhookForges } from "./webhook-forge.js";

/** Forge text put into run variables stays within the generic lane's 4 KiB. */
const VAR_MAX = 4_000;

const forgeError = (what: string, error: ForgeError): FinalDecision => ({
  kind: "forge_error",
  reason: `forge failed while ${what}: ${error.code}: ${error.reason}`,
});

/**
 * Performs a lane's forge checks (forge-check.ts) and decides: launch, filtered, or a forge
 * failure (review rule 7: a launch_error row, nothing launched, nothing posted). Its calls share
 * the lane's budget and are made before any store write of the delivery.
 */
export class ForgeStep {
  constructor(private readonly forges: WebhookForges) {}

  async resolve(config: WebhookConfig, check: ForgeCheck): Promise<FinalDecision> {
    const opened = await this.forges.open(config, check.provider);
    if (!opened.ok) return filtered(`${check.lane} lane cannot ask the forge: ${opened.reason}`);
    const forge = opened.client;
    if (check.gate) {
      const role = await forge.permissionOf(check.repo, check.gate.login);
      // A user the forge does not know holds no role: refused, not a forge failure.
      const held = role.ok ? role.value : role.error.code === "not_found" ? "none" : undefined;
      if (held === undefined) return forgeError(`checking ${check.gate.login}'s permission`, (role as { error: ForgeError }).error);
      if (!roleAtLeast(held, check.gate.minRole)) {
        // An unknown command is explained only to those who may use the known ones.
        if (!check.refusal)
          await explain(
            forge,
            check,
            `${check.respond?.command ?? "This"} needs a repository role of at least ${check.gate.minRole}, or a place on this webhook's authorized repliers; ask a maintainer.`,
          );
        return filtered(`${check.refusedReason} (${held})`);
      }
    }
    if (check.refusal) {
      await explain(forge, check, check.refusal.reply);
      return filtered(check.refusal.reason);
    }
    let pull: PullRequestFacts | undefined;
    if (check.provePull) {
      const got = await forge.pullRequest(check.repo, check.number);
      if (!got.ok) return forgeError(`resolving pull request ${check.number}`, got.error);
      pull = got.value;
      if (pull.state !== "open") return filtered(`${check.lane}: pull request ${check.number} is ${pull.state}`);
      // Same-repo only when proven by repository id; a deleted or unnamed head repository is refused.
      if (pull.headRepoId === null || pull.headRepoId !== pull.baseRepoId) {
        await explain(
          forge,
          check,
          `${check.respond?.command ?? "This"} runs only on pull requests from a branch of this repository; this one comes from a fork.`,
        );
        return filtered(
          `${check.lane}: fork proven by repository id (head ${pull.headRepoFullName ?? pull.headRepoId ?? "deleted"}, base ${pull.baseRepoFullName}); refused`,
        );
      }
    }
    let threadContext: string | undefined;
    if (check.thread) {
      const thread = await readThread(forge, check, check.thread.id);
      if (!thread.ok) return thread.error ? forgeError(`reading review thread ${check.thread.id}`, thread.error) : filtered(thread.reason);
      if (!isBotThread(thread.value, check.thread))
        return filtered(`${check.lane}: thread ${check.thread.id} is not the bot's (human-to-human threads never trigger)`);
      threadContext = contextOf(thread.value);
    } else if (check.threadContext !== undefined) {
      // Best effort: a question still launches without its thread.
      const thread = await readThread(forge, check, check.threadContext);
      if (thread.ok) threadContext = contextOf(thread.value);
    }
    let priorReview: string | undefined;
    if (check.priorReviewBy && pull) {
      // Best effort: the improvement runs without findings when the forge cannot say.
      const review = await forge.latestReview(check.repo, check.number, check.priorReviewBy);
      if (review.ok && review.value) priorReview = capped(review.value.body);
    }
    // Best effort, and only once every check has answered: an 👀 that fails launches all the same.
    if (check.respond?.acknowledge) await forge.react(check.repo, check.number, check.respond, "eyes");
    return { kind: "launch", launches: finishPlans(config, check, pull, { threadContext, priorReview }) };
  }
}

/** One reply saying why, when the webhook explains refusals; its failure changes nothing (the refusal stands). */
async function explain(forge: ForgeClient, check: ForgeCheck, text: string): Promise<void> {
  if (check.respond?.explain) await forge.postReply(check.repo, check.number, check.respond, text);
}

type ThreadRead = { ok: true; value: ThreadFacts } | { ok: false; error?: ForgeError; reason: string };

async function readThread(forge: ForgeClient, check: ForgeCheck, id: string): Promise<ThreadRead> {
  if (forge.reviewThread === null) return { ok: false, reason: `${check.lane}: ${check.provider} has no review threads to read` };
  const got = await forge.reviewThread(check.repo, check.number, id);
  return got.ok ? got : { ok: false, error: got.error, reason: got.error.reason };
}

function isBotThread(thread: ThreadFacts, rule: ThreadCheck): boolean {
  const bots = new Set(rule.botLogins.map(normaliseLogin));
  const byBot = (c: { authorLogin: string }) => bots.has(normaliseLogin(c.authorLogin));
  return rule.rule === "opened" ? thread.comments[0] !== undefined && byBot(thread.comments[0]) : thread.comments.some(byBot);
}

function contextOf(thread: ThreadFacts): string {
  return capped(thread.comments.map((c) => `${c.authorLogin}: ${c.body}`).join("\n\n"));
}

function capped(text: string): string {
  return text.length > VAR_MAX ? `${text.slice(0, VAR_MAX - 1)}…` : text;
}

/**
 * The plans, finished with what the forge proved: the head branch and sha and base_ref from the
 * pull request (under the handler's own variables), `/improve`'s target, and the webhook's layers on top.
 */
export function finishPlans(
  config: WebhookConfig,
  check: ForgeCheck,
  pull: PullRequestFacts | undefined,
  read: { threadContext?: string | undefined; priorReview?: string | undefined } = {},
): LaunchPlan[] {
  const p = check.pending;
  return p.bots.map((bot) => {
    const proven: Record<string, string> = {};
    if (pull) proven.base_ref = pull.baseRef;
    if (read.threadContext !== undefined) proven.thread_context = read.threadContext;
    if (bot.improve && read.priorReview !== undefined) proven.prior_review = read.priorReview;
    if (bot.improve && pull && config.branch_improve_as_pr) Object.assign(proven, { open_mr: "true", mr_base: pull.headRef });
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
    };
  });
}
