/** GitLab marked drafts by title before the draft flag (and some versions still do). */
export const GITLAB_DRAFT_PREFIXES = ["draft:", "wip:", "[draft]", "(draft)", "[wip]"] as const;
/** Gitea's default WORK_IN_PROGRESS_PREFIXES; versions without a `draft` field rely on them. */
export const GITEA_DRAFT_PREFIXES = ["wip:", "[wip]"] as const;

/** Both forges compare title prefixes case-insensitively. */
export function hasDraftPrefix(title: string | undefined, prefixes: readonly string[]): boolean {
  const t = (title ?? "").trimStart().toLowerCase();
  return prefixes.some((p) => t.startsWith(p));
}
