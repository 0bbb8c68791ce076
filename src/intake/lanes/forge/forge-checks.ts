import type { ForgeClient, ForgeError, PullRequestFacts, ThreadFacts } from "../../../forges/shared/forge-client.js";
import { roleAtLeast } from "../../../forges/shared/forge-roles.js";
import { filtered, type FinalDecision } from "../../pipeline/delivery-decision.js";
import { normaliseLogin } from "../../pipeline/filters.js";
import type { ForgeCheck, ThreadCheck } from "../../pipeline/forge-check.js";
import { capped } from "./finish-plans.js";

/** One check's answer: the lane stops with a decision, or goes on with what the forge said. */
export type Checked<T> = { stop: FinalDecision } | { value: T };

export const forgeError = (what: string, error: ForgeError): FinalDecision => ({
  kind: "forge_error",
  reason: `forge failed while ${what}: ${error.code}: ${error.reason}`,
});

/** One reply saying why, when the webhook explains refusals; its failure changes nothing (the refusal stands). */
export async function explain(forge: ForgeClient, check: ForgeCheck, text: string): Promise<void> {
  if (check.respond?.explain) await forge.postReply(check.repo, check.number, check.respond, text);
}

/** The replier gate's live half; a user the forge does not know holds no role (refused, not a forge failure). */
export async function passGate(forge: ForgeClient, check: ForgeCheck): Promise<FinalDecision | undefined> {
  const gate = check.gate;
  if (!gate) return undefined;
  const role = await forge.permissionOf(check.repo, gate.login);
  if (!role.ok && role.error.code !== "not_found") return forgeError(`checking ${gate.login}'s permission`, role.error);
  const held = role.ok ? role.value : "none";
  if (roleAtLeast(held, gate.minRole)) return undefined;
  // An unknown command is explained only to those who may use the known ones.
  if (!check.refusal) {
    const what = check.respond?.command ?? "This";
    await explain(
      forge,
      check,
      `${what} needs a repository role of at least ${gate.minRole}, or a place on this webhook's authorized repliers; ask a maintainer.`,
    );
  }
  return filtered(`${check.refusedReason} (${held})`);
}

/** The pull request, open and proven same-repo by repository id; a deleted or unnamed head repository is a fork (fail closed). */
export async function provenPull(forge: ForgeClient, check: ForgeCheck): Promise<Checked<PullRequestFacts | undefined>> {
  if (!check.provePull) return { value: undefined };
  const got = await forge.pullRequest(check.repo, check.number);
  if (!got.ok) return { stop: forgeError(`resolving pull request ${check.number}`, got.error) };
  const pull = got.value;
  if (pull.state !== "open") return { stop: filtered(`${check.lane}: pull request ${check.number} is ${pull.state}`) };
  if (pull.headRepoId !== null && pull.headRepoId === pull.baseRepoId) return { value: pull };
  await explain(forge, check, `${check.respond?.command ?? "This"} runs only on pull requests from a branch of this repository; this one comes from a fork.`);
  const head = pull.headRepoFullName ?? pull.headRepoId ?? "deleted";
  return { stop: filtered(`${check.lane}: fork proven by repository id (head ${head}, base ${pull.baseRepoFullName}); refused`) };
}

/** The bot's thread (required: human-to-human threads never trigger), or a question's thread (best effort): its text. */
export async function threadContextOf(forge: ForgeClient, check: ForgeCheck): Promise<Checked<string | undefined>> {
  if (check.thread) {
    const thread = await readThread(forge, check, check.thread.id);
    if (!thread.ok) return { stop: thread.error ? forgeError(`reading review thread ${check.thread.id}`, thread.error) : filtered(thread.reason) };
    if (!isBotThread(thread.value, check.thread)) {
      return { stop: filtered(`${check.lane}: thread ${check.thread.id} is not the bot's (human-to-human threads never trigger)`) };
    }
    return { value: contextOf(thread.value) };
  }
  if (check.threadContext === undefined) return { value: undefined };
  const thread = await readThread(forge, check, check.threadContext);
  return { value: thread.ok ? contextOf(thread.value) : undefined };
}

/** Best effort: an improvement runs without findings when the forge cannot say. */
export async function priorReviewOf(forge: ForgeClient, check: ForgeCheck, pull: PullRequestFacts | undefined): Promise<string | undefined> {
  if (!check.priorReviewBy || !pull) return undefined;
  const review = await forge.latestReview(check.repo, check.number, check.priorReviewBy);
  return review.ok && review.value ? capped(review.value.body) : undefined;
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
