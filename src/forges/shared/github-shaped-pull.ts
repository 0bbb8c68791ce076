import { Type } from "typebox";
import { hasDraftPrefix } from "./draft-title.js";
import type { PullRequestFacts } from "./forge-client.js";
import { parseAnswer } from "./parse-answer.js";

const User = Type.Object({ login: Type.String(), id: Type.Number() });
const RepoRef = Type.Object({ id: Type.Number(), full_name: Type.String() });

/**
 * A pull request as GitHub answers it and Forgejo copies it, only the fields read. Where they
 * differ (Forgejo's missing `draft`, null labels, `head.repo_id`; a listed GitHub pull without
 * `merged`) the field is optional.
 */
const Pull = Type.Object({
  state: Type.String(),
  title: Type.Optional(Type.String()),
  draft: Type.Optional(Type.Boolean()),
  merged: Type.Optional(Type.Boolean()),
  merged_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  user: User,
  labels: Type.Optional(Type.Union([Type.Array(Type.Object({ name: Type.String() })), Type.Null()])),
  head: Type.Object({
    sha: Type.String(),
    ref: Type.String(),
    repo_id: Type.Optional(Type.Number()),
    repo: Type.Optional(Type.Union([RepoRef, Type.Null()])),
  }),
  base: Type.Object({ ref: Type.String(), repo: RepoRef }),
  updated_at: Type.String(),
  html_url: Type.Optional(Type.String()),
});

/** Where a GitHub-shaped forge departs from GitHub. */
export interface GithubShapedPullOptions {
  /** A pull without a `draft` field is a draft when its title starts with one of these (Forgejo before the field). */
  draftTitlePrefixes?: readonly string[];
  /** The head's `repo_id` names its repository when `repo` is missing (Forgejo); 0 names none (a deleted fork). */
  headRepoId?: boolean;
}

/** A GitHub-shaped pull request answer (GitHub's `GET /repos/{o}/{r}/pulls/{n}`, Forgejo's the same) as the lanes' facts. */
export function githubShapedPull(data: unknown, options: GithubShapedPullOptions = {}): PullRequestFacts {
  const pr = parseAnswer(Pull, data, "a pull request");
  const merged = pr.merged === true || (pr.merged_at ?? null) !== null;
  const byTitle = options.draftTitlePrefixes !== undefined && hasDraftPrefix(pr.title, options.draftTitlePrefixes);
  const headRepoIdField = options.headRepoId === true && pr.head.repo_id ? pr.head.repo_id : null;
  return {
    state: merged ? "merged" : pr.state === "open" ? "open" : "closed",
    draft: pr.draft ?? byTitle,
    headRepoId: pr.head.repo?.id ?? headRepoIdField,
    baseRepoId: pr.base.repo.id,
    headRepoFullName: pr.head.repo?.full_name ?? null,
    baseRepoFullName: pr.base.repo.full_name,
    headSha: pr.head.sha,
    headRef: pr.head.ref,
    baseRef: pr.base.ref,
    authorLogin: pr.user.login,
    labels: (pr.labels ?? []).map((l) => l.name),
    updatedAt: pr.updated_at,
    ...(pr.html_url !== undefined && { webUrl: pr.html_url }),
    ...(pr.title !== undefined && { title: pr.title }),
  };
}
