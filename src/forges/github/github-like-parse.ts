import type { EventKind, ForgeEvent, ForkFacts } from "../shared/delivery-event.js";
import { githubLikeGate } from "./github-gate-parse.js";
import { GITEA_DRAFT_PREFIXES, hasDraftPrefix } from "../shared/draft-title.js";
import { at, boolAt, idAt, intAt, namesAt, strAt, textAt, type JsonObject } from "../shared/json-guards.js";

/**
 * GitHub's payloads and Gitea/Forgejo/Gogs's GitHub-like ones share this parser. Only the
 * fields the lanes read are named; anything missing is left undefined.
 */
export type GithubLikeFlavour = "forge_b" | "forge_c";

/** A user's login: GitHub and Gitea send `login`, Gogs only `username`. */
function loginAt(root: unknown, ...path: string[]): string | undefined {
  return textAt(root, ...path, "login") ?? textAt(root, ...path, "username");
}

function kindOf(eventName: string, root: JsonObject, flavour: GithubLikeFlavour): EventKind {
  switch (eventName.toLowerCase()) {
    case "pull_request":
      return "pull_request";
    case "issues":
      return "issues";
    case "issue_comment":
      return isPullComment(root) ? "pull_request_comment" : "note";
    // Gitea names review (diff line) comments pull_request_comment.
    case "pull_request_comment":
      return flavour === "forge_c" ? "pull_request_review_comment" : "other";
    case "pull_request_review_comment":
      return "pull_request_review_comment";
    case "check_run":
    case "check_suite":
    case "status":
      return "gate";
    case "ping":
      return "ping";
    case "push":
      return "push";
    default:
      return "other";
  }
}

/** GitHub marks a PR's issue with `issue.pull_request`; Gitea sends `is_pull`. */
function isPullComment(root: JsonObject): boolean {
  const pr = at(root, "issue", "pull_request");
  return boolAt(root, "is_pull") === true || (typeof pr === "object" && pr !== null);
}

/** A repository as a fork's facts name it: its full name, else its id. */
const repoLabel = (name: string | undefined, id: number | string | undefined) => name ?? (id !== undefined ? `repo ${id}` : undefined);

/** Head repository vs base repository, by id where both carry one, else by full name. */
export function githubLikeFork(pr: unknown, repository: unknown): ForkFacts {
  const headName = textAt(pr, "head", "repo", "full_name");
  const baseName = textAt(pr, "base", "repo", "full_name") ?? textAt(repository, "full_name");
  const headId = idAt(pr, "head", "repo", "id") ?? idAt(pr, "head", "repo_id");
  const baseId = idAt(pr, "base", "repo", "id") ?? idAt(pr, "base", "repo_id") ?? idAt(repository, "id");
  const head = repoLabel(headName, headId);
  const base = repoLabel(baseName, baseId);
  if (head === undefined || base === undefined) return { state: "unknown" };
  const idsDiffer = headId !== undefined && baseId !== undefined && headId !== baseId;
  const namesDiffer = headName !== undefined && baseName !== undefined && headName.toLowerCase() !== baseName.toLowerCase();
  if (idsDiffer || namesDiffer) return { state: "fork", head, base };
  const proven = (headId !== undefined && baseId !== undefined) || (headName !== undefined && baseName !== undefined);
  return proven ? { state: "same" } : { state: "unknown" };
}

function stateOf(root: unknown, ...path: string[]): "open" | "closed" | undefined {
  const s = strAt(root, ...path, "state")?.toLowerCase();
  return s === "open" ? "open" : s === "closed" ? "closed" : undefined;
}

/** Gitea says "synchronized" where GitHub says "synchronize". */
function normaliseAction(action: string): string {
  return action === "synchronized" ? "synchronize" : action;
}

export function parseGithubLike(flavour: GithubLikeFlavour, eventName: string, root: JsonObject): ForgeEvent {
  const kind = kindOf(eventName, root, flavour);
  const repo = at(root, "repository");
  // The subject's fields are added with Object.assign: V8 adds keys to a `{ ...base }` copy
  // slowly (about 1 µs per key), and this runs on every delivery.
  const base: ForgeEvent = {
    provider: flavour,
    eventName,
    kind,
    action: normaliseAction(strAt(root, "action") ?? ""),
    projectPath: textAt(repo, "full_name"),
    projectId: idAt(repo, "id"),
    repoUrl: textAt(repo, "clone_url"),
    defaultBranch: textAt(repo, "default_branch"),
    actorLogin: loginAt(root, "sender"),
    draft: false,
    fork: { state: "unknown" },
    changes: {},
  };
  const pr = at(root, "pull_request");
  // A PR's own payload, or a review comment's PR.
  if (kind === "pull_request" || (kind === "pull_request_review_comment" && pr !== undefined))
    return Object.assign(base, pullRequestFields(flavour, kind, root, pr, repo));
  if (kind === "gate") return withGate(base, eventName, root);
  if (kind === "issues" || kind === "note" || kind === "pull_request_comment") return Object.assign(base, issueFields(kind, root));
  return base;
}

/** A pull request's fields, from its own event or from a review comment on it. */
function pullRequestFields(flavour: GithubLikeFlavour, kind: EventKind, root: JsonObject, pr: unknown, repo: unknown): Partial<ForgeEvent> {
  const title = strAt(pr, "title");
  return {
    number: intAt(pr, "number") ?? intAt(root, "number"),
    headSha: textAt(pr, "head", "sha"),
    baseRef: textAt(pr, "base", "ref"),
    headRef: textAt(pr, "head", "ref"),
    url: textAt(pr, "html_url"),
    title,
    body: strAt(pr, "body"),
    authorLogin: loginAt(pr, "user"),
    labels: namesAt(pr, "name", "labels"),
    appliedLabels: kind === "pull_request" ? appliedLabel(root) : undefined,
    draft: isDraft(flavour, pr, title),
    fork: githubLikeFork(pr, repo),
    authorAssociation: textAt(pr, "author_association"),
    requestedReviewer: loginAt(root, "requested_reviewer"),
    dequeueReason: textAt(root, "reason"),
    updatedAt: textAt(pr, "updated_at"),
    eventAt: textAt(pr, "updated_at"),
    commentId: idAt(root, "comment", "id"),
    commentBody: strAt(root, "comment", "body"),
    threadId: idAt(root, "comment", "in_reply_to_id"),
    commentOn: kind === "pull_request_review_comment" ? "pull_request" : undefined,
    state: stateOf(pr),
    merged: boolAt(pr, "merged"),
  };
}

/** A draft by its flag; on Gitea/Forgejo also by a draft prefix on its title. */
function isDraft(flavour: GithubLikeFlavour, pr: unknown, title: string | undefined): boolean {
  const flagged = boolAt(pr, "draft") === true;
  return flavour === "forge_c" ? flagged || hasDraftPrefix(title, GITEA_DRAFT_PREFIXES) : flagged;
}

/** A check or status event's gate, and the commit and pull request it names; the base alone when it names none. */
function withGate(base: ForgeEvent, eventName: string, root: JsonObject): ForgeEvent {
  const gate = githubLikeGate(eventName, root);
  return gate ? Object.assign(base, { gate, headSha: gate.sha, number: gate.pulls[0] }) : base;
}

/** An issue's fields, from its own event or from a comment on it (or on a pull request, which is an issue too). */
function issueFields(kind: "issues" | "note" | "pull_request_comment", root: JsonObject): Partial<ForgeEvent> {
  const issue = at(root, "issue");
  const commented = kind !== "issues";
  return {
    number: intAt(issue, "number"),
    url: textAt(issue, "html_url"),
    title: strAt(issue, "title"),
    body: strAt(issue, "body"),
    authorLogin: loginAt(issue, "user"),
    labels: namesAt(issue, "name", "labels"),
    appliedLabels: kind === "issues" ? appliedLabel(root) : undefined,
    authorAssociation: textAt(issue, "author_association"),
    updatedAt: textAt(issue, "updated_at"),
    eventAt: commented ? (textAt(root, "comment", "updated_at") ?? textAt(issue, "updated_at")) : textAt(issue, "updated_at"),
    commentId: commented ? idAt(root, "comment", "id") : undefined,
    commentBody: commented ? strAt(root, "comment", "body") : undefined,
    commentOn: commented ? (kind === "pull_request_comment" ? "pull_request" : "issue") : undefined,
    state: stateOf(issue),
  };
}
/** GitHub's `labeled` actions name the one label applied. */
function appliedLabel(root: JsonObject): string[] | undefined {
  const name = textAt(root, "label", "name");
  return name === undefined ? undefined : [name];
}
