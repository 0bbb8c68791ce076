import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import { Periodic } from "../core/periodic.js";
import type { CommentRef } from "../forges/shared/forge-client.js";
import type { WebhookForges } from "../intake/lanes/forge/webhook-forge.js";
import type { BotQuestion } from "../runs/runner/bot-output.js";
import { parseVars } from "../runs/runs.js";
import { dueQuestionPosts, markQuestionPosted, markQuestionPostFailed, takeQuestionPost } from "../store/question-posts.js";
import type { Store } from "../store/store.js";
import { findWebhook } from "../store/webhooks.js";
import type { WebhookConfig } from "../webhooks/webhook-config.js";
import { configFromRow } from "../webhooks/webhook-record.js";

/** How often every replica sends due posts. */
const SWEEP_EVERY_MS = 5_000;
const BATCH = 100;
/** A post the forge keeps refusing is given up after this many tries. */
export const MAX_POST_TRIES = 8;
const FIRST_BACKOFF_MS = 30_000;
const MAX_BACKOFF_MS = 30 * 60_000;
/** A post being sent is not sent by another replica for this long. */
const TAKEN_FOR_MS = 2 * 60_000;

export type PostResult = "posted" | "dropped" | "failed" | "gave_up";

type DuePost = Awaited<ReturnType<typeof dueQuestionPosts>>[number];

/** The pull request (merge request, issue) a run's subject names, and where on it to answer. */
export interface QuestionThread {
  repo: string;
  number: number;
  to: CommentRef;
}

const SUBJECT = /^(gh|gl|fj):(.+)([#!])(\d+)$/;

/**
 * The thread a delivered run came from: its subject (`gh:acme/app#12`, `gl:group/app!5`, a
 * question's `…/note:<id>` under its pull request) and, when the launching comment sat in a
 * review thread, that thread (`discussion_id`). Undefined for a run with no such subject.
 */
export function questionThread(run: { subject_id: string | null; parent_subject_id: string | null; vars: string }): QuestionThread | undefined {
  const subject = run.parent_subject_id ?? run.subject_id?.replace(/\/note:[^/]*$/, "") ?? null;
  const m = subject === null ? null : SUBJECT.exec(subject);
  if (!m) return undefined;
  const [, forge, repo, mark, number] = m;
  const threadId = parseVars(run.vars).discussion_id;
  const to: CommentRef = {
    // postReply answers in the thread, or on the conversation: it needs no comment of its own.
    commentId: threadId ?? "",
    ...(threadId !== undefined && threadId !== "" && { threadId }),
    // GitLab writes merge requests `!5` and issues `#3`; the others share one number space.
    ...(forge === "gl" && mark === "#" && { onIssue: true }),
  };
  return { repo: repo!, number: Number(number), to };
}

/**
 * The comment: the question in a code block (the bot's words, never read as markup, mentions or
 * links), its choices, and how a team member answers.
 */
export function questionComment(q: BotQuestion, o: { botId: string; runId: string; runUrl: string }): string {
  const lines = [q.text, ...(q.choices ? ["", "Choices:", ...q.choices.map((c) => `- ${c}`)] : [])].join("\n");
  const longest = Math.max(2, ...[...lines.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return [
    `The run of **${o.botId}** is waiting for an answer:`,
    "",
    `${fence}text`,
    lines,
    fence,
    "",
    `A team member answers on the run's page (${o.runUrl}), with \`remote runs answer ${o.runId} <answer>\`, or with \`POST /api/runs/${o.runId}/answer\`. A reply here is not read as an answer.`,
  ].join("\n");
}

export interface QuestionRepliesDeps {
  store: Store;
  clock: Clock;
  forges: Pick<WebhookForges, "open">;
  log: Logger;
  /** The service's public address: the comment links the run's console page. */
  baseUrl: string;
}

/**
 * Posts a run's question on the thread it came from, for webhooks with `post_questions` (the
 * attempt's end notes it in an outbox, in the same transaction). Every replica sweeps; a row is
 * taken before it is sent, so it is posted once. A forge failure never touches the run: it is
 * tried again with backoff, up to {@link MAX_POST_TRIES}; a question answered (or a run
 * cancelled) before it was posted is not posted.
 */
export class QuestionReplies {
  /** Its timer: the sweepers' catalog (src/sweepers.ts) names, starts and stops it. */
  readonly periodic: Periodic;

  constructor(private readonly deps: QuestionRepliesDeps) {
    this.periodic = new Periodic(SWEEP_EVERY_MS, () => this.tick(deps.clock.now()));
  }

  /** One pass at `now`: each handled post's result by run id. */
  async tick(now: number): Promise<Map<string, PostResult>> {
    const { store } = this.deps;
    const results = new Map<string, PostResult>();
    for (const row of await dueQuestionPosts(store.db, now, BATCH)) {
      if (!(await takeQuestionPost(store.db, row.run_id, row.attempt, Number(row.due_at), now + TAKEN_FOR_MS))) continue;
      results.set(row.run_id, await this.send(row, now));
    }
    return results;
  }

  private async send(row: DuePost, now: number): Promise<PostResult> {
    const { store, forges, log } = this.deps;
    const asking = row.status === "failed_resumable" && row.run_attempt === row.attempt && row.question !== null;
    const thread = questionThread(row);
    const webhook = await findWebhook(store.db, row.webhook_id);
    if (!asking || !thread || !webhook || webhook.provider === "generic") {
      await markQuestionPosted(store.db, row.run_id, row.attempt, null, now);
      return "dropped";
    }
    const provider = webhook.provider as Exclude<WebhookConfig["provider"], "generic">;
    const runUrl = `${this.deps.baseUrl.replace(/\/+$/, "")}/console/runs/${encodeURIComponent(row.run_id)}`;
    const body = questionComment(JSON.parse(row.question!) as BotQuestion, { botId: row.bot_id, runId: row.run_id, runUrl });
    const opened = await forges.open(configFromRow(webhook), provider);
    const posted = opened.ok ? await opened.client.postReply(thread.repo, thread.number, thread.to, body) : undefined;
    if (posted?.ok) {
      await markQuestionPosted(store.db, row.run_id, row.attempt, posted.value.id, now);
      return "posted";
    }
    const error = posted ? `${posted.error.code}: ${posted.error.reason}` : opened.ok ? "unreachable" : opened.reason;
    // The forge refused the request itself (a 4xx other than a rate limit): sending it again gets the same answer.
    const retryable = posted?.error.code !== "forge_rejected";
    const tries = row.tries + 1;
    const giveUp = !retryable || tries >= MAX_POST_TRIES;
    const dueAt = giveUp ? null : now + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (tries - 1));
    await markQuestionPostFailed(store.db, row.run_id, row.attempt, { tries, dueAt, error });
    log.warn(
      { run_id: row.run_id, webhook_id: row.webhook_id, provider, tries, error },
      giveUp ? "posting a run's question on the forge given up" : "posting a run's question on the forge failed; retried later",
    );
    return giveUp ? "gave_up" : "failed";
  }
}
