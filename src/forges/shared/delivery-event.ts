import type { ForgeProviderName } from "./forge-client.js";
import type { JsonObject } from "./json-guards.js";

/** The spec's normalised kinds, plus ping, push and other for what no lane handles. */
export type EventKind =
  | "merge_request"
  | "note"
  | "pull_request"
  | "pull_request_comment"
  | "pull_request_review_comment"
  | "issues"
  | "gate"
  | "ping"
  | "push"
  | "other";

/** Head project vs base project; `unknown` when the payload does not name both. */
export type ForkFacts = { state: "same" } | { state: "fork"; head: string; base: string } | { state: "unknown" };

export interface FlagChange {
  previous: boolean | undefined;
  current: boolean | undefined;
}

export interface ListChange {
  previous: string[];
  current: string[];
}

/** GitLab's `changes` diffs (MR and issue hooks); empty on the other forges. */
export interface EventChanges {
  /** `changes.draft`, or the deprecated `changes.work_in_progress`. */
  draft?: FlagChange;
  /** Label titles before and after. */
  labels?: ListChange;
  /** Reviewer usernames before and after, and those marked `re_requested`. */
  reviewers?: ListChange & { reRequested: string[] };
}

/** How a gate concluded: pending and other (cancelled, skipped, neutral …) act on nothing. */
export type GateConclusion = "success" | "failure" | "pending" | "other";

/** One named result a gate event carries: a check run, a commit status, a pipeline or one of its jobs. */
export interface GateResult {
  name: string;
  /** The forge's own word (failure, timed_out, failed, error …), told to the run. */
  state: string;
  conclusion: GateConclusion;
  detailsUrl: string | undefined;
}

/** A CI gate event: its results, the commit they are for, and what tells a re-run from a redelivery. */
export interface GateReport {
  results: GateResult[];
  sha: string | undefined;
  /** The forge's id of this run of the gate (a re-run has a new one, or a new finish time). */
  runId: string;
  /** The pull or merge requests the forge names (GitHub's same-repository pulls, GitLab's MR); empty when it names none. */
  pulls: number[];
}

/** A provisioned repository's CI gate (repo-bots `gate_context`, `auto_fix_on_gate_failure`, `review_after_gate`). */
export interface GateSettings {
  context: string;
  autoFix: boolean;
  reviewAfterGate: boolean;
}

/** What the gate step asks of the forge: the pull request whose head the gate concluded on (gate-lane.ts). */
export interface GateCheck {
  result: GateResult;
  sha: string;
  /** Tells a re-run of the gate from a redelivery of the same run. */
  runId: string;
  /** The pull or merge requests the payload names; empty: the forge is asked by commit. */
  pulls: number[];
  settings: GateSettings;
  event: ForgeEvent;
}

/** One forge delivery, normalised. Optional fields are those a payload may lack. */
export interface ForgeEvent {
  provider: ForgeProviderName;
  /** The event header value as sent ("Merge Request Hook", "pull_request"); "" when absent. */
  eventName: string;
  kind: EventKind;
  /** GitLab object_attributes.action or the GitHub-style action; Gitea's "synchronized" reads "synchronize". */
  action: string;
  /** `owner/repo`; GitLab nested groups keep every segment. */
  projectPath?: string;
  projectId?: string;
  /** HTTP clone URL of the base project. */
  repoUrl?: string;
  defaultBranch?: string;
  /** PR number, MR iid or issue number/iid. */
  number?: number;
  headSha?: string;
  baseRef?: string;
  headRef?: string;
  /** Web URL of the PR, MR or issue. */
  url?: string;
  title?: string;
  body?: string;
  /** Author of the PR, MR or issue (GitLab MR hooks name it only when the actor is the author). */
  authorLogin?: string;
  /** Whoever caused the event (GitHub `sender`, GitLab `user`). */
  actorLogin?: string;
  /** Labels on the subject; undefined when the payload carries none, so hold labels fail open. */
  labels?: string[];
  /** Labels this event applied: GitHub's `label`, or GitLab's changes.labels diff. */
  appliedLabels?: string[];
  draft: boolean;
  fork: ForkFacts;
  authorAssociation?: string;
  requestedReviewer?: string;
  /** GitHub's `dequeued` reason (MERGE_CONFLICT, CI_FAILURE …): why the merge queue ejected the PR. */
  dequeueReason?: string;
  changes: EventChanges;
  updatedAt?: string;
  /** The forge's time for this event: the subject's updated_at (no forge sends a delivery time). */
  eventAt?: string;
  commentId?: string;
  commentBody?: string;
  /** The review thread a comment replies in: GitLab's discussion_id, GitHub's in_reply_to_id (the thread's first comment). */
  threadId?: string;
  /** What a comment or note is attached to. */
  commentOn?: "pull_request" | "issue" | "commit" | "snippet";
  state?: "open" | "closed";
  merged?: boolean;
  /** A gate event's results (kind `gate`). */
  gate?: GateReport;
}

/** A generic delivery: the JSON object as sent, checked field by field in the generic lane. */
export interface GenericEvent {
  provider: "generic";
  kind: "generic";
  body: JsonObject;
  /** A test delivery (`X-Service-Event: ping`): nothing to launch. */
  ping?: boolean;
  /** SHA-256 hex of the raw body: the idempotency fallback and the delivery row's payload hash. */
  rawSha256: string;
}

export type DeliveryEvent = ForgeEvent | GenericEvent;
