import {
  Commits,
  IssueDiscussions,
  IssueNoteAwardEmojis,
  IssueNotes,
  MergeRequestDiscussions,
  MergeRequestNoteAwardEmojis,
  MergeRequestNotes,
  MergeRequests,
  ProjectMembers,
  Users,
} from "@gitbeaker/rest";
import { createRequesterFn, type RequestOptions } from "@gitbeaker/requester-utils";
import { Type } from "typebox";
import { GITLAB_DRAFT_PREFIXES, hasDraftPrefix } from "../shared/draft-title.js";
import type {
  CommentRef,
  CommitState,
  CommitStatus,
  ForgeApi,
  ForgeRole,
  PullRequestFacts,
  Reaction,
  ThreadFacts,
  TokenOwner,
} from "../shared/forge-client.js";
import { ForgeFailure, forgeFailure, httpFailure } from "../shared/forge-errors.js";
import { apiRootUnder, webRootOf, type ForgeApiContext, type ForgeModule } from "../shared/forge-module.js";
import { roleFromGitlabLevel } from "../shared/forge-roles.js";
import { AnswerId, idText, parseAnswer } from "../shared/parse-answer.js";

/** forge_a is GitLab, through gitbeaker's resources on a requester of ours (the guarded fetch). */
const PUBLIC_HOST = "https://gitlab.com";
const API = "/api/v4";

const User = Type.Object({ username: Type.String(), id: Type.Number() });
const Member = Type.Object({ access_level: Type.Number(), state: Type.Optional(Type.String()) });
const MergeRequestOfCommit = Type.Object({ iid: Type.Number(), state: Type.String(), sha: Type.Optional(Type.String()) });
const MergeRequest = Type.Object({
  state: Type.String(),
  title: Type.String(),
  draft: Type.Optional(Type.Boolean()),
  work_in_progress: Type.Optional(Type.Boolean()),
  source_project_id: Type.Number(),
  target_project_id: Type.Number(),
  source_branch: Type.String(),
  target_branch: Type.String(),
  sha: Type.String(),
  author: User,
  // Names by default; objects when the instance is asked for label details.
  labels: Type.Array(Type.Union([Type.String(), Type.Object({ name: Type.String() })])),
  updated_at: Type.String(),
  references: Type.Optional(Type.Object({ full: Type.Optional(Type.String()) })),
  web_url: Type.Optional(Type.String()),
});
const Note = Type.Object({ id: AnswerId, body: Type.String(), author: User, created_at: Type.String(), system: Type.Optional(Type.Boolean()) });
const Discussion = Type.Object({ id: AnswerId, notes: Type.Array(Note) });
const Created = Type.Object({ id: AnswerId });

const GITLAB_STATE: Record<CommitState, "pending" | "running" | "success" | "failed" | "canceled"> = {
  pending: "pending",
  running: "running",
  success: "success",
  failure: "failed",
  error: "failed",
  cancelled: "canceled",
};

/** gitbeaker's request handler, swapped for one that sends through the guarded fetch and throws our failures. */
/** The endpoint under the client's prefix, with its query. */
function requestUrl(endpoint: string, o: RequestOptions): URL {
  const prefix = o.prefixUrl ?? "";
  const url = new URL(endpoint, prefix.endsWith("/") ? prefix : `${prefix}/`);
  if (o.searchParams) url.search = o.searchParams;
  return url;
}

/** An answer's body: none for 204, parsed JSON when it says so, else its text. */
async function answerBody(response: Response): Promise<Record<string, unknown> | string | null> {
  if (response.status === 204) return null;
  const json = (response.headers.get("content-type") ?? "").includes("json");
  return json ? ((await response.json()) as Record<string, unknown>) : await response.text();
}

function requesterOn(fetch: typeof globalThis.fetch) {
  return createRequesterFn(
    async (_resource, options) => options,
    async (endpoint, options) => {
      const o = (options ?? {}) as RequestOptions;
      const response = await fetch(requestUrl(endpoint, o), {
        method: o.method ?? "GET",
        headers: o.headers ?? {},
        body: o.body ?? null,
        signal: o.signal ?? null,
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw new ForgeFailure(httpFailure(response, Date.now()));
      }
      return { body: await answerBody(response), headers: Object.fromEntries(response.headers), status: response.status };
    },
  );
}

class GitLabApi implements ForgeApi {
  private readonly members: ProjectMembers;
  private readonly commits: Commits;
  private readonly users: Users;
  private readonly mergeRequests: MergeRequests;
  private readonly discussions: MergeRequestDiscussions;
  private readonly notes: MergeRequestNotes;
  private readonly awards: MergeRequestNoteAwardEmojis;
  private readonly issueDiscussions: IssueDiscussions;
  private readonly issueNotes: IssueNotes;
  private readonly issueAwards: IssueNoteAwardEmojis;

  constructor(ctx: ForgeApiContext) {
    // No token here: the guarded fetch adds it. No gitbeaker timeout or rate limiter: the fetch and the lane own both.
    const options = { host: webRootOf(ctx.apiRoot, API), requesterFn: requesterOn(ctx.fetch), queryTimeout: null, rateLimits: {} };
    this.members = new ProjectMembers(options);
    this.commits = new Commits(options);
    this.users = new Users(options);
    this.mergeRequests = new MergeRequests(options);
    this.discussions = new MergeRequestDiscussions(options);
    this.notes = new MergeRequestNotes(options);
    this.awards = new MergeRequestNoteAwardEmojis(options);
    this.issueDiscussions = new IssueDiscussions(options);
    this.issueNotes = new IssueNotes(options);
    this.issueAwards = new IssueNoteAwardEmojis(options);
  }

  /** Members are looked up by user id, so the login is resolved first; GitLab answers 404 for a non-member. */
  async permissionOf(repo: string, login: string): Promise<ForgeRole | "none"> {
    const found = parseAnswer(Type.Array(User), await this.users.all({ username: login }), "a user lookup");
    const user = found.find((u) => u.username.toLowerCase() === login.toLowerCase());
    if (user === undefined) return "none";
    try {
      const member = parseAnswer(Member, await this.members.show(repo, user.id, { includeInherited: true }), "a project member");
      return member.state === undefined || member.state === "active" ? roleFromGitlabLevel(member.access_level) : "none";
    } catch (err) {
      if (err instanceof ForgeFailure && err.error.code === "not_found") return "none";
      throw err;
    }
  }

  /** GitLab's merge requests of a commit (`GET /projects/:id/repository/commits/:sha/merge_requests`). */
  async pullForCommit(repo: string, sha: string): Promise<number | null> {
    const mrs = parseAnswer(Type.Array(MergeRequestOfCommit), await this.commits.allMergeRequests(repo, sha), "a commit's merge requests");
    return mrs.find((m) => m.state === "opened" && (m.sha === undefined || m.sha === sha))?.iid ?? null;
  }

  async pullRequest(repo: string, number: number): Promise<PullRequestFacts> {
    const mr = parseAnswer(MergeRequest, await this.mergeRequests.show(repo, number), "a merge request");
    const samePath = mr.references?.full?.replace(/!\d+$/, "") ?? repo;
    const sameProject = mr.source_project_id === mr.target_project_id;
    return {
      // locked: GitLab is merging it; it takes no more reviews.
      state: mr.state === "opened" ? "open" : mr.state === "merged" ? "merged" : "closed",
      draft: mr.draft ?? mr.work_in_progress ?? hasDraftPrefix(mr.title, GITLAB_DRAFT_PREFIXES),
      headRepoId: mr.source_project_id,
      baseRepoId: mr.target_project_id,
      headRepoFullName: sameProject ? samePath : null,
      baseRepoFullName: samePath,
      headSha: mr.sha,
      headRef: mr.source_branch,
      baseRef: mr.target_branch,
      authorLogin: mr.author.username,
      labels: mr.labels.map((l) => (typeof l === "string" ? l : l.name)),
      updatedAt: mr.updated_at,
      ...(mr.web_url !== undefined && { webUrl: mr.web_url }),
      title: mr.title,
    };
  }

  /** GitLab has no review body: the newest note by one of `authors` on the MR (one page, newest first) stands for it. */
  async latestReview(repo: string, number: number, authors: readonly string[]) {
    const notes = parseAnswer(Type.Array(Note), await this.notes.all(repo, number, { sort: "desc", orderBy: "created_at", perPage: 50, maxPages: 1 }), "notes");
    const wanted = new Set(authors.map((a) => a.toLowerCase()));
    const found = notes.find((n) => n.system !== true && n.body !== "" && wanted.has(n.author.username.toLowerCase()));
    return found ? { authorLogin: found.author.username, body: found.body } : null;
  }

  readonly reviewThread = async (repo: string, number: number, threadId: string): Promise<ThreadFacts> => {
    const d = parseAnswer(Discussion, await this.discussions.show(repo, number, threadId), "a discussion");
    // System notes ("changed this line in version 2") are GitLab's, not a participant's.
    const comments = d.notes
      .filter((n) => n.system !== true)
      .map((n) => ({ id: idText(n.id), authorLogin: n.author.username, authorId: n.author.id, body: n.body, createdAt: n.created_at }));
    if (comments.length === 0) throw forgeFailure("not_found", `discussion ${threadId} has no notes`);
    return { id: idText(d.id), comments };
  };

  async postReply(repo: string, number: number, to: CommentRef, body: string) {
    const [discussions, notes] = to.onIssue ? [this.issueDiscussions, this.issueNotes] : [this.discussions, this.notes];
    const created = to.threadId !== undefined ? await discussions.addNote(repo, number, to.threadId, body) : await notes.create(repo, number, body);
    return { id: idText(parseAnswer(Created, created, "a new note").id) };
  }

  async react(repo: string, number: number, to: CommentRef, reaction: Reaction) {
    await (to.onIssue ? this.issueAwards : this.awards).award(repo, number, Number(to.commentId), reaction);
  }

  /** `POST /projects/:id/statuses/:sha`; the context is the status's name. */
  async setStatus(repo: string, sha: string, status: CommitStatus) {
    await this.commits.editStatus(repo, sha, GITLAB_STATE[status.state], {
      name: status.context,
      description: status.description,
      targetUrl: status.targetUrl,
    });
    return { checkRunId: null };
  }

  async tokenOwner(): Promise<TokenOwner> {
    const user = parseAnswer(User, await this.users.showCurrentUser(), "the token's user");
    return { login: user.username, id: user.id };
  }
}

export const gitlabApi: ForgeModule = {
  apiRoot: (base) => apiRootUnder(base ?? new URL(PUBLIC_HOST), API),
  // GitLab takes personal, project and group tokens as Bearer too; Node's fetch drops Authorization across origins, never PRIVATE-TOKEN.
  authorization: (token) => `Bearer ${token}`,
  retriesRateLimits: false,
  // The requester above throws ForgeFailure itself.
  failureOf: () => undefined,
  createApi: (ctx) => new GitLabApi(ctx),
};
