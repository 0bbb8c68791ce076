import { BRANCH_IMPROVE_BOT } from "../../bots/bot-id.js";
import type { PullRequestFacts } from "../../forges/shared/forge-client.js";
import type { WebhookConfig } from "../../webhooks/webhook-config.js";
import type { DeliveryContext } from "../pipeline/delivery-context.js";
import { filtered, invalid, type DeliveryDecision, type FinalDecision, type LaunchPlan } from "../pipeline/delivery-decision.js";
import type { ForgeEvent, GateCheck } from "../../forges/shared/delivery-event.js";
import { authorAllowed, notHeld, projectAllowed } from "../pipeline/filters.js";
import { layerVars } from "../pipeline/launch-vars.js";
import { botPermitted } from "../pipeline/route-bots.js";
import { pullSubjectId } from "../pipeline/subject-id.js";
import { decideReview, reviewKey } from "./review-lane.js";

/**
 * How many automatic fixes in a row one pull request gets when each is followed by another
 * failure of its gate: the third run is told it is the last (`gate_fix_last`), and a fourth
 * failure launches nothing until the gate passes on the pull request again.
 */
export const GATE_FIX_LIMIT = 3;

/** Gate names are compared as the forge shows them, without case. */
const sameGate = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * A CI gate event (GitHub check_run, check_suite, status; GitLab Pipeline Hook; Forgejo status):
 * the repository's own gate concluding success or failure needs the forge to name the pull
 * request; anything else is filtered here. The gate is the provisioned repository's
 * `gate_context`; a webhook without one has no gate lanes.
 */
export function decideGate(config: WebhookConfig, event: ForgeEvent, context: DeliveryContext): DeliveryDecision {
  const settings = context.gate;
  if (!settings) return filtered("gate event: this repository names no gate_context");
  const report = event.gate;
  if (!report || report.results.length === 0) return filtered("gate event names no check, status or pipeline");
  const result = report.results.find((r) => sameGate(r.name, settings.context));
  if (!result) return filtered(`gate event for ${report.results.map((r) => r.name).join(", ")}, not the gate ${settings.context}`);
  if (result.conclusion !== "success" && result.conclusion !== "failure")
    return filtered(`gate ${result.name} is ${result.state || "unfinished"}: nothing to do`);
  const { projectPath: path } = event;
  const sha = report.sha;
  if (path === undefined || sha === undefined) return invalid("bad_payload", "gate event lacks project path or commit sha");
  const project = projectAllowed(config.project_allowlist, path);
  if (!project.pass) return filtered(project.reason);
  if (result.conclusion === "failure" && !settings.autoFix) return filtered(`gate ${result.name} failed: auto_fix_on_gate_failure is off`);
  // A success matters when a review waits for it, or to end a pull request's run of fixes.
  if (result.conclusion === "success" && !settings.reviewAfterGate && !settings.autoFix) {
    return filtered(`gate ${result.name} passed: review_after_gate and auto_fix_on_gate_failure are off`);
  }
  return {
    kind: "forge",
    check: {
      lane: "gate",
      provider: event.provider,
      repo: path,
      number: report.pulls[0] ?? 0,
      refusedReason: "",
      provePull: true,
      pending: { bots: [], subjectId: "", projectPath: path },
      gateCheck: { result, sha, runId: report.runId, pulls: report.pulls, settings, event },
    },
  };
}

/**
 * `review_after_gate`: the automatic review of an opened, reopened, ready or pushed pull request
 * waits for the gate to pass on its head instead of launching now (commands and re-requests
 * still launch at once). Undefined when the review goes ahead.
 */
export function waitsForGate(context: DeliveryContext, event: ForgeEvent): DeliveryDecision | undefined {
  const gate = context.gate;
  if (!gate?.reviewAfterGate) return undefined;
  return filtered(`review waits for gate ${gate.context} to pass on ${event.headSha?.slice(0, 12) ?? "the head"} (review_after_gate)`);
}

/** The gate's variables, as every gate launch is told them. */
function gateVars(check: GateCheck): Record<string, string> {
  const vars: Record<string, string> = {
    gate_name: check.result.name,
    gate_conclusion: check.result.state || check.result.conclusion,
    gate_head_sha: check.sha,
  };
  if (check.result.detailsUrl !== undefined) vars.gate_details_url = check.result.detailsUrl;
  return vars;
}

/** The pull request as the review lane reads a pull_request event, from what the forge said of it. */
function pullEvent(check: GateCheck, number: number, pull: PullRequestFacts): ForgeEvent {
  const e = check.event;
  return {
    provider: e.provider,
    eventName: e.eventName,
    kind: e.provider === "forge_a" ? "merge_request" : "pull_request",
    action: "opened",
    projectPath: e.projectPath,
    ...(e.projectId !== undefined && { projectId: e.projectId }),
    ...(e.repoUrl !== undefined && { repoUrl: e.repoUrl }),
    number,
    headSha: pull.headSha,
    baseRef: pull.baseRef,
    headRef: pull.headRef,
    ...(pull.webUrl !== undefined && { url: pull.webUrl }),
    ...(pull.title !== undefined && { title: pull.title }),
    authorLogin: pull.authorLogin,
    labels: pull.labels,
    draft: pull.draft,
    fork: { state: "same" },
    changes: {},
    state: "open",
  };
}

/** Why the gate's result must not act on the pull request: closed, from a fork, no longer its head, or a draft. */
function unfitPull(what: string, number: number, pull: PullRequestFacts, sha: string): string | undefined {
  if (pull.state !== "open") return `${what}: pull request ${number} is ${pull.state}`;
  if (pull.headRepoId === null || pull.headRepoId !== pull.baseRepoId) return `${what}: pull request ${number} is from a fork; gate lanes never run on forks`;
  if (pull.headSha !== sha) return `${what}: no longer the head of pull request ${number} (now ${pull.headSha.slice(0, 12)})`;
  if (pull.draft) return `${what}: pull request ${number} is a draft; drafts never auto-launch`;
  return undefined;
}

/** A passed gate: the waiting review launches (once per gate run) when the webhook asks for it; the run of fixes ends either way. */
function reviewAfterGate(
  config: WebhookConfig,
  check: GateCheck,
  prEvent: ReturnType<typeof pullEvent>,
  context: DeliveryContext,
  what: string,
  number: number,
  passed: { subjectId: string; gate: string },
): FinalDecision {
  const { result } = check;
  if (!check.settings.reviewAfterGate) return { ...filtered(`${what}: pull request ${number} passes its gate`), gatePassed: passed };
  const review = decideReview(config, prEvent, context, false);
  if (review.kind !== "launch") return { ...(review.kind === "filtered" ? review : filtered(`${what}: the review lane did not launch`)), gatePassed: passed };
  const launches: LaunchPlan[] = review.launches.map((plan) => ({
    ...plan,
    vars: { ...plan.vars, ...gateVars(check) },
    idempotencyKey: `${plan.idempotencyKey}|gate:${result.name}:${check.runId}`,
    gatePassed: result.name,
  }));
  return { kind: "launch", launches };
}

/**
 * The gate's result on the pull request the forge named: on its head only, never on a fork,
 * a draft or a closed one. Success launches the waiting review (once per gate run) and ends
 * the pull request's run of fixes; failure launches the branch-improvement bot on the head
 * (once per head and gate; the intake holds it to {@link GATE_FIX_LIMIT} in a row).
 */
export function decideGateOnPull(config: WebhookConfig, check: GateCheck, number: number, pull: PullRequestFacts, context: DeliveryContext): FinalDecision {
  const { result, sha, event } = check;
  const what = `gate ${result.name} ${result.conclusion === "success" ? "passed" : "failed"} on ${sha.slice(0, 12)}`;
  const unfit = unfitPull(what, number, pull, sha);
  if (unfit) return filtered(unfit);
  const path = event.projectPath!;
  const subjectId = pullSubjectId(event.provider, path, number);
  const passed = { subjectId, gate: result.name };
  const prEvent = pullEvent(check, number, pull);
  if (result.conclusion === "success") return reviewAfterGate(config, check, prEvent, context, what, number, passed);
  for (const c of [authorAllowed(config.author_allowlist, pull.authorLogin), notHeld(config.hold_labels, pull.labels)]) {
    if (!c.pass) return filtered(`${what}: ${c.reason}`);
  }
  if (!botPermitted(config, BRANCH_IMPROVE_BOT) || !context.isKnownBot(BRANCH_IMPROVE_BOT)) {
    return filtered(`${what}: auto-fix needs the ${BRANCH_IMPROVE_BOT} bot in bot_ids`);
  }
  const key = reviewKey(config, prEvent, path, number, sha);
  if (key === undefined) return invalid("bad_payload", "gate event lacks the merge request's project id") as FinalDecision;
  const base: Record<string, string> = { ...gateVars(check), base_ref: pull.baseRef };
  if (pull.webUrl !== undefined) base.pr_url = pull.webUrl;
  const ruleVars = config.bot_rules?.find((r) => r.bot_id === BRANCH_IMPROVE_BOT)?.launch_vars ?? {};
  const plan: LaunchPlan = {
    botId: BRANCH_IMPROVE_BOT,
    vars: layerVars(base, ruleVars, config.operator_launch_vars, config.launch_vars),
    idempotencyKey: `${key}|gatefix:${result.name}`,
    subjectId,
    subjectSha: sha,
    projectPath: path,
    ...(event.repoUrl !== undefined && { repoUrl: event.repoUrl }),
    repoRef: pull.headRef,
    gateFix: { gate: result.name, limit: GATE_FIX_LIMIT },
  };
  return { kind: "launch", launches: [plan] };
}
