import type {
  CommentRef,
  CommitStatus,
  ForgeApi,
  ForgeClient,
  ForgeError,
  ForgeProviderName,
  ForgeResult,
  ForgeRole,
  PullRequestFacts,
  Reaction,
  ReviewFacts,
  StatusSet,
  ReviewThreadReader,
  TokenOwner,
} from "./forge-client.js";
import { ForgeFailure, forgeFailure, toForgeError, type HttpFailure } from "./forge-errors.js";
import { forgeCallSpan } from "./forge-spans.js";
import type { LaneBudget } from "./lane-budget.js";
import type { PermissionCache } from "./permission-cache.js";

export interface GuardedClientParts {
  provider: ForgeProviderName;
  apiRoot: URL;
  api: ForgeApi;
  budget: LaneBudget;
  failureOf: (err: unknown) => HttpFailure | undefined;
  permissions: PermissionCache;
}

// Forge paths, logins (GitHub's `name[bot]` too) and ids are plain words: a `..` or `/` never reaches a URL.
const SEGMENT = /^(?!\.\.?$)[\w.\-[\]]+$/;
const ID = /^[\w-]+$/;

/**
 * A forge's API as the lanes see it: inputs checked, every call raced against the lane's
 * deadline, every throw turned into a {@link ForgeError}, permission answers cached.
 */
export class GuardedForgeClient implements ForgeClient {
  readonly provider: ForgeProviderName;
  readonly reviewThread: ReviewThreadReader | null;

  constructor(private readonly parts: GuardedClientParts) {
    this.provider = parts.provider;
    const read = parts.api.reviewThread;
    this.reviewThread =
      read &&
      ((repo, number, threadId) =>
        this.call("reviewThread", async () => {
          checkRepo(repo);
          checkId(threadId);
          return read(repo, number, threadId);
        }));
  }

  async permissionOf(repo: string, login: string): Promise<ForgeResult<ForgeRole | "none">> {
    const { api, apiRoot, permissions } = this.parts;
    const cached = permissions.get(apiRoot.href, repo, login);
    if (cached !== undefined) return { ok: true, value: cached };
    const result = await this.call("permissionOf", async () => {
      checkRepo(repo);
      checkSegment(login, "login");
      return api.permissionOf(repo, login);
    });
    if (result.ok) permissions.set(apiRoot.href, repo, login, result.value);
    return result;
  }

  pullRequest(repo: string, number: number): Promise<ForgeResult<PullRequestFacts>> {
    return this.call("pullRequest", async () => {
      checkRepo(repo);
      return this.parts.api.pullRequest(repo, number);
    });
  }

  pullForCommit(repo: string, sha: string): Promise<ForgeResult<number | null>> {
    return this.call("pullForCommit", async () => {
      checkRepo(repo);
      checkId(sha);
      return this.parts.api.pullForCommit(repo, sha);
    });
  }

  latestReview(repo: string, number: number, authors: readonly string[]): Promise<ForgeResult<ReviewFacts | null>> {
    return this.call("latestReview", async () => {
      checkRepo(repo);
      return this.parts.api.latestReview(repo, number, authors);
    });
  }

  postReply(repo: string, number: number, to: CommentRef, body: string): Promise<ForgeResult<{ id: string }>> {
    return this.call("postReply", async () => {
      checkRepo(repo);
      // No comment named (an empty id, no thread): a new comment on the conversation.
      if (to.commentId !== "" || to.threadId !== undefined) checkRef(to);
      return this.parts.api.postReply(repo, number, to, body);
    });
  }

  react(repo: string, number: number, to: CommentRef, reaction: Reaction): Promise<ForgeResult<void>> {
    return this.call("react", async () => {
      checkRepo(repo);
      checkRef(to);
      return this.parts.api.react(repo, number, to, reaction);
    });
  }

  setStatus(repo: string, sha: string, status: CommitStatus): Promise<ForgeResult<StatusSet>> {
    return this.call("setStatus", async () => {
      checkRepo(repo);
      checkId(sha);
      if (status.checkRun?.id) checkId(status.checkRun.id);
      return this.parts.api.setStatus(repo, sha, status);
    });
  }

  tokenOwner(): Promise<ForgeResult<TokenOwner>> {
    return this.call("tokenOwner", () => this.parts.api.tokenOwner());
  }

  /** One operation, as a span of its own when tracing is on (its HTTP requests are its children). */
  private call<T>(operation: string, op: () => Promise<T>): Promise<ForgeResult<T>> {
    return forgeCallSpan(operation, this.provider, this.parts.apiRoot, () => this.guarded(op));
  }

  private async guarded<T>(op: () => Promise<T>): Promise<ForgeResult<T>> {
    const { budget, failureOf } = this.parts;
    try {
      if (budget.expired()) throw forgeFailure("forge_unavailable", "the lane's deadline had passed");
      return { ok: true, value: await untilDeadline(op(), budget.signal) };
    } catch (err) {
      const error: ForgeError = toForgeError(err, failureOf, Date.now());
      return { ok: false, error };
    }
  }
}

/** Settles with `work`, or fails when the deadline passes first (a library may still be waiting to retry). */
function untilDeadline<T>(work: Promise<T>, deadline: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onDeadline = () => reject(forgeFailure("forge_unavailable", "the lane's deadline passed before the forge answered"));
    if (deadline.aborted) return onDeadline();
    deadline.addEventListener("abort", onDeadline, { once: true });
    work.then(
      (v) => {
        deadline.removeEventListener("abort", onDeadline);
        resolve(v);
      },
      (e: unknown) => {
        deadline.removeEventListener("abort", onDeadline);
        reject(e);
      },
    );
  });
}

function checkSegment(value: string, what: string): void {
  if (!SEGMENT.test(value)) throw new ForgeFailure({ code: "not_found", reason: `not a valid ${what}: ${JSON.stringify(value.slice(0, 80))}` });
}

function checkRepo(repo: string): void {
  for (const segment of repo.split("/")) checkSegment(segment, "repository path");
}

function checkId(id: string): void {
  if (!ID.test(id)) throw new ForgeFailure({ code: "not_found", reason: `not a valid id: ${JSON.stringify(id.slice(0, 80))}` });
}

function checkRef(to: CommentRef): void {
  checkId(to.commentId);
  if (to.threadId !== undefined) checkId(to.threadId);
}
