import type { EventChanges, EventKind, FlagChange, ForgeEvent, ForkFacts, ListChange } from "../shared/delivery-event.js";
import { gitlabGate } from "./gitlab-gate-parse.js";
import { GITLAB_DRAFT_PREFIXES, hasDraftPrefix } from "../shared/draft-title.js";
import { arrayAt, at, boolAt, idAt, intAt, namesAt, strAt, textAt, type JsonObject } from "../shared/json-guards.js";

/** Event header values (https://docs.gitlab.com/user/project/integrations/webhook_events/). */
const KIND_BY_EVENT: Record<string, EventKind> = {
  "merge request hook": "merge_request",
  "note hook": "note",
  "confidential note hook": "note",
  "issue hook": "issues",
  "pipeline hook": "gate",
  "confidential issue hook": "issues",
  "push hook": "push",
  "tag push hook": "push",
};

/** Used only when the event header is missing. */
const KIND_BY_OBJECT: Record<string, EventKind> = {
  merge_request: "merge_request",
  note: "note",
  issue: "issues",
  pipeline: "gate",
  push: "push",
  tag_push: "push",
};

const NOTEABLE: Record<string, ForgeEvent["commentOn"]> = {
  MergeRequest: "pull_request",
  Issue: "issue",
  Commit: "commit",
  Snippet: "snippet",
};

/** GitLab states: opened, closed, merged, locked. */
function stateOf(root: unknown): "open" | "closed" | undefined {
  const s = strAt(root, "state");
  if (s === "opened") return "open";
  return s === "closed" || s === "merged" || s === "locked" ? "closed" : undefined;
}

/** Source project vs target project, by id and by path; neither named means unknown. */
export function gitlabFork(mr: unknown): ForkFacts {
  const sourceId = idAt(mr, "source_project_id");
  const targetId = idAt(mr, "target_project_id");
  const sourcePath = textAt(mr, "source", "path_with_namespace");
  const targetPath = textAt(mr, "target", "path_with_namespace");
  const idsKnown = sourceId !== undefined && targetId !== undefined;
  const pathsKnown = sourcePath !== undefined && targetPath !== undefined;
  if ((idsKnown && sourceId !== targetId) || (pathsKnown && sourcePath.toLowerCase() !== targetPath.toLowerCase())) {
    return {
      state: "fork",
      head: sourcePath ?? `project ${sourceId ?? "?"}`,
      base: targetPath ?? `project ${targetId ?? "?"}`,
    };
  }
  return idsKnown || pathsKnown ? { state: "same" } : { state: "unknown" };
}

function flagChange(changes: unknown, key: string): FlagChange | undefined {
  const c = at(changes, key);
  if (c === undefined) return undefined;
  return { previous: boolAt(c, "previous"), current: boolAt(c, "current") };
}

function listChange(changes: unknown, key: string, field: string): ListChange | undefined {
  if (at(changes, key) === undefined) return undefined;
  return { previous: namesAt(changes, field, key, "previous") ?? [], current: namesAt(changes, field, key, "current") ?? [] };
}

function changesOf(root: JsonObject): EventChanges {
  const changes = at(root, "changes");
  const out: EventChanges = {};
  const draft = flagChange(changes, "draft") ?? flagChange(changes, "work_in_progress");
  if (draft) out.draft = draft;
  const labels = listChange(changes, "labels", "title");
  if (labels) out.labels = labels;
  const reviewers = listChange(changes, "reviewers", "username");
  if (reviewers) {
    const reRequested = (arrayAt(changes, "reviewers", "current") ?? [])
      .filter((r) => boolAt(r, "re_requested") === true)
      .flatMap((r) => textAt(r, "username") ?? []);
    out.reviewers = { ...reviewers, reRequested };
  }
  return out;
}

/** Labels in current but not previous, compared by title case-insensitively. */
function addedLabels(labels: ListChange | undefined): string[] | undefined {
  if (!labels) return undefined;
  const before = new Set(labels.previous.map((l) => l.toLowerCase()));
  return labels.current.filter((l) => !before.has(l.toLowerCase()));
}

/** The event's kind, by its header; by the payload's object_kind only when the header is missing. */
function kindOf(eventName: string, root: JsonObject): EventKind {
  if (eventName) return KIND_BY_EVENT[eventName.toLowerCase()] ?? "other";
  return KIND_BY_OBJECT[strAt(root, "object_kind") ?? ""] ?? "other";
}

/** The user who acted: MR and issue hooks carry only a subject's author_id, so the author's username is the actor's when the ids match. */
interface Actor {
  id: string | undefined;
  username: string | undefined;
}

function authorOf(subject: unknown, actor: Actor): string | undefined {
  return actor.id !== undefined && idAt(subject, "author_id") === actor.id ? actor.username : undefined;
}

export function parseGitlab(eventName: string, root: JsonObject): ForgeEvent {
  const kind = kindOf(eventName, root);
  const project = at(root, "project");
  const attrs = at(root, "object_attributes");
  const actor: Actor = { id: idAt(root, "user", "id"), username: textAt(root, "user", "username") };
  const changes = changesOf(root);
  // Subject fields are added with Object.assign, not `{ ...base, … }` (slow in V8 on every delivery).
  const base: ForgeEvent = {
    provider: "forge_a",
    eventName,
    kind,
    action: strAt(attrs, "action") ?? "",
    projectPath: textAt(project, "path_with_namespace"),
    projectId: idAt(project, "id") ?? idAt(root, "project_id"),
    repoUrl: textAt(project, "git_http_url") ?? textAt(project, "http_url"),
    defaultBranch: textAt(project, "default_branch"),
    actorLogin: actor.username,
    labels: namesAt(root, "title", "labels") ?? namesAt(attrs, "title", "labels"),
    draft: false,
    fork: { state: "unknown" },
    changes,
    updatedAt: textAt(attrs, "updated_at"),
    eventAt: textAt(attrs, "updated_at"),
  };
  switch (kind) {
    case "merge_request":
      return Object.assign(base, mergeRequestFields(attrs, actor));
    case "gate":
      return Object.assign(base, gateFields(root, attrs));
    case "issues":
      return Object.assign(base, issueFields(attrs, actor, changes));
    case "note":
      return noteEvent(base, root, attrs, actor);
    default:
      return base;
  }
}

function mergeRequestFields(mr: unknown, actor: Actor): Partial<ForgeEvent> {
  const title = strAt(mr, "title");
  return {
    number: intAt(mr, "iid"),
    headSha: textAt(mr, "last_commit", "id"),
    baseRef: textAt(mr, "target_branch"),
    headRef: textAt(mr, "source_branch"),
    url: textAt(mr, "url"),
    title,
    body: strAt(mr, "description"),
    authorLogin: authorOf(mr, actor),
    draft: boolAt(mr, "draft") === true || boolAt(mr, "work_in_progress") === true || hasDraftPrefix(title, GITLAB_DRAFT_PREFIXES),
    fork: gitlabFork(mr),
    state: stateOf(mr),
    merged: strAt(mr, "state") === "merged",
  };
}

/** A pipeline's gate, on its commit and branch; a pipeline event says nothing of when its subject changed. */
function gateFields(root: JsonObject, attrs: unknown): Partial<ForgeEvent> {
  const gate = gitlabGate(root);
  return { gate, headSha: gate.sha, headRef: textAt(attrs, "ref"), number: gate.pulls[0], updatedAt: undefined, eventAt: undefined };
}

function issueFields(issue: unknown, actor: Actor, changes: EventChanges): Partial<ForgeEvent> {
  return {
    number: intAt(issue, "iid"),
    url: textAt(issue, "url"),
    title: strAt(issue, "title"),
    body: strAt(issue, "description"),
    authorLogin: authorOf(issue, actor),
    appliedLabels: addedLabels(changes.labels),
    state: stateOf(issue),
  };
}

/** A comment, with the merge request's fields or the issue's title and description when it is on one of them. */
function noteEvent(base: ForgeEvent, root: JsonObject, attrs: unknown, actor: Actor): ForgeEvent {
  const commentOn = NOTEABLE[strAt(attrs, "noteable_type") ?? ""];
  const subject = commentOn === "pull_request" ? at(root, "merge_request") : commentOn === "issue" ? at(root, "issue") : undefined;
  return Object.assign(base, noteSubjectFields(commentOn, subject, actor), {
    number: intAt(subject, "iid"),
    url: textAt(attrs, "url"),
    commentId: idAt(attrs, "id"),
    commentBody: strAt(attrs, "note"),
    threadId: textAt(attrs, "discussion_id"),
    commentOn,
    state: stateOf(subject),
  });
}

function noteSubjectFields(commentOn: ForgeEvent["commentOn"], subject: unknown, actor: Actor): Partial<ForgeEvent> {
  if (commentOn === "pull_request") return mergeRequestFields(subject, actor);
  if (commentOn === "issue") return { title: strAt(subject, "title"), body: strAt(subject, "description") };
  return {};
}
