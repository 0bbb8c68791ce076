import type { LaunchRequest } from "../admission/launch-types.js";
import type { ProviderName } from "../webhooks/webhook-config.js";

/** One run to launch; each bot of a fan-out gets its own plan, key and variables. */
export interface LaunchPlan {
  botId: string;
  /** A fresh map per plan: handler base, bot rule vars, operator_launch_vars, launch_vars. */
  vars: Record<string, string>;
  idempotencyKey: string;
  /** What runs are bound to, e.g. `gh:acme/app#12`; a pull_request close stops runs by it. */
  subjectId: string;
  parentSubjectId?: string;
  subjectSha?: string;
  /** "" when a generic request names no project. */
  projectPath: string;
  repoUrl?: string;
  repoRef?: string;
}

export type InvalidCode =
  | "bad_signature"
  | "bad_payload"
  | "missing_bot"
  | "too_many_vars"
  | "bad_var_key"
  | "var_value_too_large"
  | "nul_character"
  | "bot_not_permitted"
  | "unknown_bot";

/** The outcome of one verified delivery. Each variant names the HTTP status it becomes. */
export type DeliveryDecision =
  /** 200; a filtered row under a random key, the reason visible in the deliveries list. */
  | { kind: "filtered"; reason: string }
  /** An invalid row under a random key; status from {@link invalidHttpStatus}. */
  | { kind: "invalid"; code: InvalidCode; reason: string }
  /** 200; stop every run bound to the subject (subject_id or parent_subject_id), across bots. */
  | { kind: "stop"; subjectId: string }
  /** 202 `deferred`: each plan parked until the quiet window passes (synchronize with a debounce; intake/parked-launches.ts). */
  | { kind: "defer"; launches: LaunchPlan[]; eventAt?: string }
  /** Each plan: idempotent insert, then the launch gate: 200 launched or duplicate, 402/429 denial. */
  | { kind: "launch"; launches: LaunchPlan[] };

export const filtered = (reason: string): DeliveryDecision => ({ kind: "filtered", reason });
export const invalid = (code: InvalidCode, reason: string): DeliveryDecision => ({ kind: "invalid", code, reason });

/** Lanes that need live forge API checks are filtered until a forge client exists. */
export const NEEDS_FORGE_API = {
  command: "command lane needs forge API checks (not available yet)",
  threadReply: "thread-reply lane needs forge API checks (not available yet)",
  reviewRequest: "review-request lane needs forge API checks (not available yet)",
  trustedAuthor: "trusted-author issue-opened lane needs forge API checks (not available yet)",
  mergeQueue: "merge-queue lane needs forge API checks (not available yet)",
} as const;

/**
 * HTTP status of an invalid delivery. A bad signature is 401; generic callers get 400 with the
 * spec's messages; on forges other invalid outcomes answer 200, because a 4xx makes a forge
 * disable the hook (GitLab auto-disables failing hooks).
 */
export function invalidHttpStatus(provider: ProviderName, code: InvalidCode): 200 | 400 | 401 {
  if (code === "bad_signature") return 401;
  return provider === "generic" ? 400 : 200;
}

/** A webhook's launch of one bot's plan, recorded as `deliveryId`. */
export function launchRequestOf(plan: LaunchPlan, teamId: string, webhookId: string, deliveryId: string): LaunchRequest {
  return {
    teamId,
    botId: plan.botId,
    vars: plan.vars,
    repoUrl: plan.repoUrl ?? null,
    repoRef: plan.repoRef ?? null,
    projectPath: plan.projectPath || null,
    subjectId: plan.subjectId,
    parentSubjectId: plan.parentSubjectId ?? null,
    webhookId,
    deliveryId,
    source: "webhook",
    actor: { userId: null, kind: "webhook" },
  };
}
