import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";
import { Type } from "typebox";
import type { CommentRef, CommitState, CommitStatus, ForgeApi, PullRequestFacts, Reaction, ThreadFacts, TokenOwner } from "../shared/forge-client.js";
import { findCause, ForgeFailure, forgeFailure, type HttpFailure } from "../shared/forge-errors.js";
import { apiRootUnder, ownerAndName, type ForgeApiContext, type ForgeModule } from "../shared/forge-module.js";
import { roleFromPermissionName } from "../shared/forge-roles.js";
import { githubShapedPull } from "../shared/github-shaped-pull.js";
import { AnswerId, idText, parseAnswer } from "../shared/parse-answer.js";

/**
 * A refused address fails the same way every time: its request is not retried. Applied before the
 * retry plugin, so its error hook sees the failure first (octokit makes every fetch failure a 500).
 */
function refusalsAreFinal(octokit: Pick<Octokit, "hook">): void {
  octokit.hook.error("request", (error, options) => {
    const ours = findCause(error, (e): e is ForgeFailure => e instanceof ForgeFailure);
    if (ours?.error.code === "forge_address_refused") options.request = { ...options.request, retries: 0 };
    throw error;
  });
}

/** forge_b is GitHub (and GitHub Enterprise Server), through octokit. */
const GitHub = Octokit.plugin(refusalsAreFinal, retry, throttling);

const PUBLIC_API = "https://api.github.com/";
// Statuses octokit's retry plugin leaves alone: 429 and 403 rate limits belong to the throttling plugin.
const DO_NOT_RETRY = [400, 401, 403, 404, 410, 422, 429, 451];

const User = Type.Object({ login: Type.String(), id: Type.Number() });
const Permission = Type.Object({ permission: Type.String(), role_name: Type.Optional(Type.String()) });
const PullOfCommit = Type.Object({ number: Type.Number(), state: Type.String(), head: Type.Object({ sha: Type.String() }) });
const ReviewComment = Type.Object({
  id: AnswerId,
  in_reply_to_id: Type.Optional(AnswerId),
  user: Type.Union([User, Type.Null()]),
  body: Type.String(),
  created_at: Type.String(),
});
const Created = Type.Object({ id: AnswerId });
const Review = Type.Object({ user: Type.Union([User, Type.Null()]), body: Type.Union([Type.String(), Type.Null()]), state: Type.String() });

const GITHUB_STATE: Record<CommitState, "pending" | "success" | "failure" | "error"> = {
  pending: "pending",
  running: "pending",
  success: "success",
  failure: "failure",
  error: "error",
  cancelled: "error",
};

const CHECK_RUN_STATE: Record<CommitState, { status: "queued" | "in_progress" } | { status: "completed"; conclusion: "success" | "failure" | "cancelled" }> = {
  pending: { status: "queued" },
  running: { status: "in_progress" },
  success: { status: "completed", conclusion: "success" },
  failure: { status: "completed", conclusion: "failure" },
  error: { status: "completed", conclusion: "failure" },
  cancelled: { status: "completed", conclusion: "cancelled" },
};

class GitHubApi implements ForgeApi {
  private readonly octokit: InstanceType<typeof GitHub>;
  /** Set when octokit's throttling plugin saw a secondary rate limit, which may come as a bare 403. */
  private secondaryLimited = false;

  constructor(ctx: ForgeApiContext) {
    this.octokit = new GitHub({
      baseUrl: ctx.apiRoot.href.replace(/\/$/, ""),
      userAgent: "bot-gateway",
      request: { fetch: ctx.fetch },
      ...(ctx.log && { log: ctx.log }),
      retry: { retries: 1, doNotRetry: DO_NOT_RETRY },
      throttle: {
        id: ctx.tokenKey,
        onRateLimit: (afterS: number, _o: unknown, _k: unknown, count: number) => ctx.mayRetry(afterS * 1000, count),
        onSecondaryRateLimit: (afterS: number, _o: unknown, _k: unknown, count: number) => {
          this.secondaryLimited = true;
          return ctx.mayRetry(afterS * 1000, count);
        },
      },
    });
  }

  async permissionOf(repo: string, login: string) {
    const { owner, name } = ownerAndName(repo);
    const res = await this.run(() => this.octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo: name, username: login }));
    const p = parseAnswer(Permission, res.data, "a collaborator's permission");
    // role_name says triage and maintain; permission folds them into read and write. A custom role falls back to its base.
    const byRole = roleFromPermissionName(p.role_name);
    return byRole !== "none" ? byRole : roleFromPermissionName(p.permission);
  }

  /** GitHub's pulls of a commit: open ones only while the commit is not on the default branch. */
  async pullForCommit(repo: string, sha: string): Promise<number | null> {
    const { owner, name } = ownerAndName(repo);
    const res = await this.run(() => this.octokit.rest.repos.listPullRequestsAssociatedWithCommit({ owner, repo: name, commit_sha: sha, per_page: 100 }));
    const pulls = parseAnswer(Type.Array(PullOfCommit), res.data, "a commit's pull requests");
    return pulls.find((p) => p.state === "open" && p.head.sha === sha)?.number ?? null;
  }

  async pullRequest(repo: string, number: number): Promise<PullRequestFacts> {
    const { owner, name } = ownerAndName(repo);
    const res = await this.run(() => this.octokit.rest.pulls.get({ owner, repo: name, pull_number: number }));
    return githubShapedPull(res.data);
  }

  /** Reviews come oldest first; a pending review is its author's draft, not yet said. */
  async latestReview(repo: string, number: number, authors: readonly string[]) {
    const { owner, name } = ownerAndName(repo);
    const all = await this.run(() => this.octokit.paginate(this.octokit.rest.pulls.listReviews, { owner, repo: name, pull_number: number, per_page: 100 }));
    const wanted = new Set(authors.map((a) => a.toLowerCase()));
    const found = parseAnswer(Type.Array(Review), all, "reviews")
      .filter((r) => r.state !== "PENDING" && (r.body ?? "") !== "" && wanted.has(r.user?.login.toLowerCase() ?? ""))
      .at(-1);
    return found ? { authorLogin: found.user?.login ?? "", body: found.body ?? "" } : null;
  }

  /** GitHub has no thread resource: a thread is its first review comment and the replies naming it. */
  readonly reviewThread = async (repo: string, number: number, threadId: string): Promise<ThreadFacts> => {
    const { owner, name } = ownerAndName(repo);
    const all = await this.run(() =>
      this.octokit.paginate(this.octokit.rest.pulls.listReviewComments, { owner, repo: name, pull_number: number, per_page: 100 }),
    );
    const comments = parseAnswer(Type.Array(ReviewComment), all, "review comments")
      .filter((c) => (c.in_reply_to_id === undefined ? idText(c.id) === threadId : idText(c.in_reply_to_id) === threadId))
      .map((c) => ({ id: idText(c.id), authorLogin: c.user?.login ?? "", authorId: c.user?.id ?? 0, body: c.body, createdAt: c.created_at }));
    // A thread is named by its first comment; a reply's id names none.
    if (comments[0]?.id !== threadId) throw forgeFailure("not_found", `no review thread ${threadId} on pull request ${number}`);
    return { id: threadId, comments };
  };

  async postReply(repo: string, number: number, to: CommentRef, body: string) {
    const { owner, name } = ownerAndName(repo);
    const res = await this.run<{ data: unknown }>(() =>
      to.threadId !== undefined
        ? this.octokit.rest.pulls.createReplyForReviewComment({ owner, repo: name, pull_number: number, comment_id: Number(to.threadId), body })
        : this.octokit.rest.issues.createComment({ owner, repo: name, issue_number: number, body }),
    );
    return { id: idText(parseAnswer(Created, res.data, "a new comment").id) };
  }

  async react(repo: string, _number: number, to: CommentRef, reaction: Reaction) {
    const { owner, name } = ownerAndName(repo);
    const comment_id = Number(to.commentId);
    await this.run<unknown>(() =>
      to.threadId !== undefined
        ? this.octokit.rest.reactions.createForPullRequestReviewComment({ owner, repo: name, comment_id, content: reaction })
        : this.octokit.rest.reactions.createForIssueComment({ owner, repo: name, comment_id, content: reaction }),
    );
  }

  async tokenOwner(): Promise<TokenOwner> {
    const res = await this.run(() => this.octokit.rest.users.getAuthenticated());
    const user = parseAnswer(User, res.data, "the token's user");
    return { login: user.login, id: user.id };
  }

  /**
   * `POST /repos/{owner}/{repo}/statuses/{sha}`: GitHub has no running state, so a running run
   * shows pending. Through an App, a check run instead (`POST …/check-runs`, then `PATCH …/check-runs/{id}`).
   */
  async setStatus(repo: string, sha: string, status: CommitStatus) {
    const { owner, name } = ownerAndName(repo);
    if (status.checkRun) {
      const fields = {
        owner,
        repo: name,
        name: status.context,
        details_url: status.targetUrl,
        output: { title: status.description, summary: status.description },
        ...CHECK_RUN_STATE[status.state],
      };
      const id = status.checkRun.id;
      const res = await this.run<{ data: unknown }>(() =>
        id === null ? this.octokit.rest.checks.create({ ...fields, head_sha: sha }) : this.octokit.rest.checks.update({ ...fields, check_run_id: Number(id) }),
      );
      return { checkRunId: idText(parseAnswer(Created, res.data, "a check run").id) };
    }
    await this.run(() =>
      this.octokit.rest.repos.createCommitStatus({
        owner,
        repo: name,
        sha,
        state: GITHUB_STATE[status.state],
        context: status.context,
        description: status.description,
        target_url: status.targetUrl,
      }),
    );
    return { checkRunId: null };
  }

  private async run<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      const status = failureOf(err)?.status;
      if (this.secondaryLimited && (status === 403 || status === 429)) throw forgeFailure("rate_limited", "GitHub's secondary rate limit");
      throw err;
    }
  }
}

/** octokit's RequestError carries the status and, when GitHub answered, its headers. */
function failureOf(err: unknown): HttpFailure | undefined {
  const e = err as { status?: unknown; response?: { headers?: Record<string, string> } } | null;
  return typeof e?.status === "number" && e.response?.headers ? { status: e.status, headers: e.response.headers } : undefined;
}

export const githubApi: ForgeModule = {
  apiRoot(base) {
    if (base === null || base.hostname === "github.com" || base.hostname === "api.github.com") return new URL(PUBLIC_API);
    return apiRootUnder(base, "/api/v3");
  },
  authorization: (token) => `Bearer ${token}`,
  retriesRateLimits: true,
  failureOf,
  createApi: (ctx) => new GitHubApi(ctx),
};
