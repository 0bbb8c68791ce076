import type { GateCheck } from "../../forges/shared/delivery-event.js";
import type { ForgeProviderName } from "../../forges/shared/forge-client.js";
import type { CardSeed } from "./launch-plan.js";
import type { ReplierRole } from "../../webhooks/webhook-config.js";

/** The lanes that need the forge's word before they launch. */
export type ForgeLane = "command" | "thread_reply" | "review_request" | "trusted_author" | "approval" | "gate";

/** One bot a pending launch will start, with the key its launch is recorded under. */
export interface PendingBot {
  botId: string;
  /** The handler-derived base and the bot rule's vars; the webhook's layers go on top when it is finished. */
  vars: Record<string, string>;
  idempotencyKey: string;
  /** `/improve`: the run commits onto the PR's head branch, or opens a PR onto it (branch_improve_as_pr). */
  improve: boolean;
}

/**
 * A launch the pure step has decided on but cannot finish: the forge fills in what the
 * payload lacks (head branch and sha, base branch) once it has proven the pull request.
 */
export interface PendingLaunch {
  bots: PendingBot[];
  subjectId: string;
  parentSubjectId?: string;
  projectPath: string;
  repoUrl?: string;
  repoRef?: string;
  subjectSha?: string;
  /** The pull request's title, for scope_notes once the forge names its branches. */
  title?: string;
  /** A forge_b review re-request: folds into an in-flight review unless overlap is supersede. */
  collapse?: boolean;
  /** An issue lane's card on the team's board. */
  card?: CardSeed;
}

/** The replier gate's live half: permission at least `minRole` (the loop guard and allowlist are pure). */
export interface PermissionGate {
  login: string;
  minRole: ReplierRole;
}

/** A thread the lane answers in; `botLogins` must have opened it (`opened`) or taken part (`took_part`). */
export interface ThreadCheck {
  id: string;
  botLogins: string[];
  rule: "opened" | "took_part";
}

/** What the lane may say on the forge about the comment it answers (per-webhook switches, beyond the spec). */
export interface ForgeResponse {
  commentId: string;
  threadId?: string;
  onIssue?: boolean;
  /** 👀 on the comment once every check passed (acknowledge_commands). */
  acknowledge: boolean;
  /** One reply saying why, when the commenter is refused for a reason they can act on (explain_refusals). */
  explain: boolean;
  /** How the reply names the command, e.g. `/re-review`. */
  command: string;
}

/**
 * What a lane needs the forge to prove, as data: the pure decision names it and the forge
 * step (forge-step.ts) performs it, with the lane's budget, outside any store transaction.
 */
export interface ForgeCheck {
  lane: ForgeLane;
  provider: ForgeProviderName;
  /** The forge's repository path and the pull request, merge request or issue number. */
  repo: string;
  number: number;
  /** Absent when the replier is on authorized_repliers (or the author is trusted by the payload). */
  gate?: PermissionGate;
  /** The filtered reason when the gate refuses. */
  refusedReason: string;
  /** Resolve the pull request through the API: open, and same-repo by repository id, or refused. */
  provePull: boolean;
  thread?: ThreadCheck;
  /** Fetch the thread for `thread_context` when a question is asked in one (best effort). */
  threadContext?: string;
  pending: PendingLaunch;
  /** `/improve`: the bot's identity, whose newest review on the pull request seeds prior_review (best effort). */
  priorReviewBy?: string[];
  respond?: ForgeResponse;
  /** Refused already (an unknown command): explained, with `reply`, only to a commenter who passes the gate. */
  refusal?: { reason: string; reply: string };
  /** A CI gate's result: the forge names the pull request it concluded on (gate-lane.ts). */
  gateCheck?: GateCheck;
}
