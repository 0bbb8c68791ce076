import { giteaApi, type Api } from "gitea-js";
import { Type } from "typebox";
import { GITEA_DRAFT_PREFIXES } from "../shared/draft-title.js";
import type { CommentRef, CommitState, CommitStatus, ForgeApi, PullRequestFacts, Reaction, TokenOwner } from "../shared/forge-client.js";
import type { HttpFailure } from "../shared/forge-errors.js";
import { apiRootUnder, ownerAndName, webRootOf, type ForgeApiContext, type ForgeModule } from "../shared/forge-module.js";
import { roleFromPermissionName } from "../shared/forge-roles.js";
import { githubShapedPull } from "../shared/github-shaped-pull.js";
import { AnswerId, idText, parseAnswer } from "../shared/parse-answer.js";

/** forge_c is Forgejo (and Gitea, whose API Forgejo keeps), through gitea-js, generated from Gitea's swagger. */
const API = "/api/v1";

const User = Type.Object({ login: Type.String(), id: Type.Number() });
const Permission = Type.Object({ permission: Type.String() });
const PullOfCommit = Type.Object({ number: Type.Number(), state: Type.String(), head: Type.Object({ sha: Type.String() }) });
const Created = Type.Object({ id: AnswerId });
const Review = Type.Object({ user: Type.Optional(Type.Union([User, Type.Null()])), body: Type.Optional(Type.String()), state: Type.Optional(Type.String()) });

const FORGEJO_STATE: Record<CommitState, "pending" | "success" | "failure" | "error"> = {
  pending: "pending",
  running: "pending",
  success: "success",
  failure: "failure",
  error: "error",
  cancelled: "error",
};

/** gitea-js puts path parameters into URLs as they are; ours are encoded first. */
const seg = encodeURIComponent;

class ForgejoApi implements ForgeApi {
  private readonly gitea: Api<unknown>;
  // Gitea's review comments have no thread to reply in; SPEC gives conversational replies to forge_b.
  readonly reviewThread = null;

  constructor(ctx: ForgeApiContext) {
    // No token here: the guarded fetch adds it.
    this.gitea = giteaApi(webRootOf(ctx.apiRoot, API), { customFetch: ctx.fetch });
  }

  /** Forgejo answers others' permissions only to a repository admin (403 otherwise); the token must be one. */
  async permissionOf(repo: string, login: string) {
    const { owner, name } = ownerAndName(repo);
    const res = await this.gitea.repos.repoGetRepoPermissions(seg(owner), seg(name), seg(login));
    return roleFromPermissionName(parseAnswer(Permission, res.data, "a collaborator's permission").permission);
  }

  /** Forgejo's pull request of a commit (`GET /repos/{owner}/{repo}/commits/{sha}/pull`): 404 when there is none. */
  async pullForCommit(repo: string, sha: string): Promise<number | null> {
    const { owner, name } = ownerAndName(repo);
    try {
      const res = await this.gitea.repos.repoGetCommitPullRequest(seg(owner), seg(name), seg(sha));
      const pr = parseAnswer(PullOfCommit, res.data, "a commit's pull request");
      return pr.state === "open" && pr.head.sha === sha ? pr.number : null;
    } catch (err) {
      if (err instanceof Response && err.status === 404) return null;
      throw err;
    }
  }

  async pullRequest(repo: string, number: number): Promise<PullRequestFacts> {
    const { owner, name } = ownerAndName(repo);
    const res = await this.gitea.repos.repoGetPullRequest(seg(owner), seg(name), number);
    // Versions before the draft field mark drafts by title only; a deleted fork leaves no head repository, and repo_id 0.
    return githubShapedPull(res.data, { draftTitlePrefixes: GITEA_DRAFT_PREFIXES, headRepoId: true });
  }

  /** Oldest first, as Forgejo lists them; a pending review is not yet said. */
  async latestReview(repo: string, number: number, authors: readonly string[]) {
    const { owner, name } = ownerAndName(repo);
    const res = await this.gitea.repos.repoListPullReviews(seg(owner), seg(name), number, { limit: 50 });
    const wanted = new Set(authors.map((a) => a.toLowerCase()));
    const found = parseAnswer(Type.Array(Review), res.data, "reviews")
      .filter((r) => r.state !== "PENDING" && (r.body ?? "") !== "" && wanted.has(r.user?.login.toLowerCase() ?? ""))
      .at(-1);
    return found ? { authorLogin: found.user?.login ?? "", body: found.body ?? "" } : null;
  }

  /** Every answer goes to the pull request's conversation (its issue): Forgejo has no reply-in-thread endpoint. */
  async postReply(repo: string, number: number, _to: CommentRef, body: string) {
    const { owner, name } = ownerAndName(repo);
    const res = await this.gitea.repos.issueCreateComment(seg(owner), seg(name), number, { body });
    return { id: idText(parseAnswer(Created, res.data, "a new comment").id) };
  }

  async react(repo: string, _number: number, to: CommentRef, reaction: Reaction) {
    const { owner, name } = ownerAndName(repo);
    await this.gitea.repos.issuePostCommentReaction(seg(owner), seg(name), Number(to.commentId), { content: reaction });
  }

  /** `POST /repos/{owner}/{repo}/statuses/{sha}`: Forgejo has no running state, so a running run shows pending. */
  async setStatus(repo: string, sha: string, status: CommitStatus) {
    const { owner, name } = ownerAndName(repo);
    await this.gitea.repos.repoCreateStatus(seg(owner), seg(name), seg(sha), {
      state: FORGEJO_STATE[status.state],
      context: status.context,
      description: status.description,
      target_url: status.targetUrl,
    });
    return { checkRunId: null };
  }

  async tokenOwner(): Promise<TokenOwner> {
    const res = await this.gitea.user.userGetCurrent();
    const user = parseAnswer(User, res.data, "the token's user");
    return { login: user.login, id: user.id };
  }
}

/** gitea-js throws the Response itself when the status is not 2xx. */
function failureOf(err: unknown): HttpFailure | undefined {
  return err instanceof Response ? { status: err.status, headers: err.headers } : undefined;
}

export const forgejoApi: ForgeModule = {
  // No public default: a Forgejo webhook names its instance, or makes no API calls.
  apiRoot: (base) => (base === null ? null : apiRootUnder(base, API)),
  // Gitea's documented form; Forgejo accepts it too.
  authorization: (token) => `token ${token}`,
  retriesRateLimits: false,
  failureOf,
  createApi: (ctx) => new ForgejoApi(ctx),
};
