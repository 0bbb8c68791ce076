import type { LaunchRequest } from "../../admission/launch-types.js";
import type { ProviderName } from "../../webhooks/webhook-config.js";
import type { ForgeCheck } from "./forge-check.js";
import type { LaunchPlan } from "./launch-plan.js";

export type { LaunchPlan } from "./launch-plan.js";

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

/**
 * Why the intake refused a delivery, recorded on its row: an invalid decision's code, a token
 * that matched no secret (`bad_token`), or a webhook without a signing secret (`no_secret`).
 */
export type RefusalCode = InvalidCode | "bad_token" | "no_secret";

/** The outcome of one verified delivery. Each variant names the HTTP status it becomes. */
export type DeliveryDecision =
  /** 200; a filtered row under a random key, the reason visible in the deliveries list. */
  | { kind: "filtered"; reason: string; held?: LaunchPlan[]; gatePassed?: { subjectId: string; gate: string } }
  /** An invalid row under a random key; status from {@link invalidHttpStatus}. */
  | { kind: "invalid"; code: InvalidCode; reason: string }
  /** 200; stop every run bound to the subject (subject_id or parent_subject_id), across bots. */
  | { kind: "stop"; subjectId: string }
  /** 202 `deferred`: each plan parked until the quiet window passes (synchronize with a debounce; intake/parked-launches.ts). */
  | { kind: "defer"; launches: LaunchPlan[]; eventAt?: string }
  /** Each plan: idempotent insert, then the launch gate: 200 launched or duplicate, 402/429 denial. */
  | { kind: "launch"; launches: LaunchPlan[] }
  /** Not an answer: the forge step (forge-lanes/forge-step.ts) performs the check and decides again. */
  | { kind: "forge"; check: ForgeCheck }
  /** 200; a launch_error row naming the forge's failure: nothing launched, nothing posted (review rule 7). */
  | { kind: "forge_error"; reason: string };

/** What the intake acts on: every decision once the forge step has answered its checks. */
export type FinalDecision = Exclude<DeliveryDecision, { kind: "forge" }>;

export const filtered = (reason: string): { kind: "filtered"; reason: string } => ({ kind: "filtered", reason });
export const invalid = (code: InvalidCode, reason: string): DeliveryDecision => ({ kind: "invalid", code, reason });

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
