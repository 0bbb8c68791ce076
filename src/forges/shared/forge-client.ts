import type { ReplierRole } from "../../webhooks/webhook-config.js";

/** The providers that have a forge API (generic has none), from the one table of provider names. */
export type { ForgeProviderName } from "../../webhooks/provider-names.js";
import type { ForgeProviderName } from "../../webhooks/provider-names.js";

/** A repository role on the spec's ladder (guest < reporter < developer < maintainer < owner). */
export type ForgeRole = ReplierRole;

/**
 * What a lane can branch on when a forge call fails. Each carries a reason fit for a
 * `launch_error` row: it names the forge's answer, never the token.
 */
export type ForgeErrorCode =
  /** 5xx, timeout, network failure, deadline passed, a redirect off the forge, an answer we cannot read. */
  | "forge_unavailable"
  /** 401 or 403: the token is missing, wrong or lacks the scope. */
  | "forge_denied"
  /** 404 or 410: the repository, pull request, thread or user is not there (or hidden from the token). */
  | "not_found"
  /** 429, or 403 with the forge's rate-limit headers, and no retry fitted before the deadline. */
  | "rate_limited"
  /** Any other 4xx: the forge refused the request itself (a locked thread, a body too long). */
  | "forge_rejected"
  /** The forge's address is on a network the service does not call (see ForgeNetwork). */
  | "forge_address_refused";

export interface ForgeError {
  code: ForgeErrorCode;
  reason: string;
  /** The forge's HTTP status, when it answered. */
  status?: number;
  /** How long the forge asked us to wait, when it said. */
  retryAfterMs?: number;
}

export type ForgeResult<T> = { ok: true; value: T } | { ok: false; error: ForgeError };

/** A pull request (GitLab: merge request) as the lanes need it. */
export interface PullRequestFacts {
  state: "open" | "closed" | "merged";
  draft: boolean;
  /** Null when the forge no longer knows the head repository (a deleted fork). */
  headRepoId: number | null;
  baseRepoId: number;
  /** Null when the forge did not say (a deleted fork; a GitLab fork, whose MR names only ids). */
  headRepoFullName: string | null;
  baseRepoFullName: string;
  headSha: string;
  headRef: string;
  baseRef: string;
  authorLogin: string;
  labels: string[];
  updatedAt: string;
  /** Its page on the forge, when the forge said. */
  webUrl?: string;
  title?: string;
}

export interface ThreadComment {
  id: string;
  authorLogin: string;
  authorId: number;
  body: string;
  createdAt: string;
}

/** A review thread, oldest comment first: the first is the one that opened it. */
export interface ThreadFacts {
  id: string;
  comments: ThreadComment[];
}

/**
 * The comment a lane answers. `threadId` is the review thread it sits in (GitHub: the id of
 * the thread's first review comment; GitLab: the note's discussion_id); absent for a comment
 * in the pull request's conversation.
 */
export interface CommentRef {
  commentId: string;
  threadId?: string;
  /** The comment is on an issue, not a pull request (GitLab answers issue notes through its issue API). */
  onIssue?: boolean;
}

export type Reaction = "eyes";

/** The newest review one of `authors` left on a pull request (GitLab: their newest note on the MR). */
export interface ReviewFacts {
  authorLogin: string;
  body: string;
}

export interface TokenOwner {
  login: string;
  id: number;
}

/** A run's state as it is shown on a commit; each forge maps it to its own word. */
export type CommitState = "pending" | "running" | "success" | "failure" | "error" | "cancelled";

/** What a commit status (GitHub, GitLab, Forgejo) says about one run. */
export interface CommitStatus {
  state: CommitState;
  /** The status's name on the commit (`<service>/<bot>`): a newer status of the same context replaces the older. */
  context: string;
  /** One line, already cut to the forge's limit. */
  description: string;
  /** The run's page. */
  targetUrl: string;
  /**
   * GitHub through a GitHub App: shown as a check run instead, created when `id` is null and
   * updated after. Other forges ignore it.
   */
  checkRun?: { id: string | null };
}

/** What the forge kept of a status: the check run's id, when one was made or updated. */
export interface StatusSet {
  checkRunId: string | null;
}

export type ReviewThreadReader = (repo: string, number: number, threadId: string) => Promise<ForgeResult<ThreadFacts>>;

/**
 * One lane's view of one forge, with one token: every call shares the lane's deadline, and
 * every expected failure comes back as a value. `repo` is the forge's path (`owner/name`;
 * GitLab: the project's full path).
 */
export interface ForgeClient {
  readonly provider: ForgeProviderName;
  /** "none" when the login has no role on the repository. Cached for a few seconds. */
  permissionOf(repo: string, login: string): Promise<ForgeResult<ForgeRole | "none">>;
  pullRequest(repo: string, number: number): Promise<ForgeResult<PullRequestFacts>>;
  /** The open pull request (merge request) whose head is `sha`, or null when there is none. */
  pullForCommit(repo: string, sha: string): Promise<ForgeResult<number | null>>;
  /** The newest non-empty review by one of `authors` (compared without case), or null when there is none. */
  latestReview(repo: string, number: number, authors: readonly string[]): Promise<ForgeResult<ReviewFacts | null>>;
  /** Null where the forge has no review-thread lane (forge_c: SPEC gives conversational replies to forge_b). */
  readonly reviewThread: ReviewThreadReader | null;
  postReply(repo: string, number: number, to: CommentRef, body: string): Promise<ForgeResult<{ id: string }>>;
  react(repo: string, number: number, to: CommentRef, reaction: Reaction): Promise<ForgeResult<void>>;
  tokenOwner(): Promise<ForgeResult<TokenOwner>>;
  /** Sets the commit status named by `status.context` on `sha`. */
  setStatus(repo: string, sha: string, status: CommitStatus): Promise<ForgeResult<StatusSet>>;
}

/**
 * What each forge implements: the same calls, answering plainly and throwing on failure.
 * The shared guard (guarded-client.ts) turns the throws into {@link ForgeError} values.
 */
export interface ForgeApi {
  permissionOf(repo: string, login: string): Promise<ForgeRole | "none">;
  pullRequest(repo: string, number: number): Promise<PullRequestFacts>;
  pullForCommit(repo: string, sha: string): Promise<number | null>;
  latestReview(repo: string, number: number, authors: readonly string[]): Promise<ReviewFacts | null>;
  reviewThread: ((repo: string, number: number, threadId: string) => Promise<ThreadFacts>) | null;
  postReply(repo: string, number: number, to: CommentRef, body: string): Promise<{ id: string }>;
  react(repo: string, number: number, to: CommentRef, reaction: Reaction): Promise<void>;
  tokenOwner(): Promise<TokenOwner>;
  setStatus(repo: string, sha: string, status: CommitStatus): Promise<StatusSet>;
}
