import type { OverlapGuard } from "../../admission/launch-types.js";
import type { Store } from "../../store/store.js";
import { findActiveRunsOfSubject, type ActiveRun } from "../../store/active-runs.js";
import type { Overlap, WebhookConfig } from "../../webhooks/webhook-config.js";
import { filtered, type FinalDecision } from "./delivery-decision.js";
import type { LaunchPlan } from "./launch-plan.js";

export type OverlapVerdict = { kind: "launch" } | { kind: "skip"; reason: string } | { kind: "supersede"; runIds: string[] };

/**
 * `overlap` for one plan, keyed on (webhook, subject, bot): `allow` (or empty) launches beside
 * what is in flight, `skip` launches nothing while a run is in flight, `supersede` launches and
 * cancels it. A forge_b review re-request folds into an in-flight review unless supersede.
 * A run of the plan's own key is its redelivery, which idempotency answers: never an overlap.
 */
export function decideOverlap(mode: Overlap, plan: LaunchPlan, active: readonly ActiveRun[]): OverlapVerdict {
  const others = active.filter((r) => r.idempotencyKey !== plan.idempotencyKey).map((r) => r.id);
  if (others.length === 0) return { kind: "launch" };
  if (mode === "supersede") return { kind: "supersede", runIds: others };
  if (mode === "skip") return { kind: "skip", reason: `overlap skip: ${plan.botId} already runs on ${plan.subjectId} (${others.join(", ")})` };
  if (plan.collapse) return { kind: "skip", reason: `review re-request folded into the in-flight review ${others.join(", ")} of ${plan.subjectId}` };
  return { kind: "launch" };
}

/**
 * What the launch itself re-checks, in one step with writing the run, when {@link decideOverlap}
 * skips a plan for any run in flight (`skip`, or a collapsing re-request unless `supersede`): two
 * concurrent deliveries cannot both pass the check made before the launch.
 */
export function overlapGuard(config: WebhookConfig, plan: LaunchPlan): OverlapGuard | undefined {
  const mode = config.overlap;
  if (mode !== "skip" && !(plan.collapse && mode !== "supersede")) return undefined;
  return { webhookId: config.id, subjectId: plan.subjectId, botId: plan.botId, key: plan.idempotencyKey };
}

/** Applies {@link decideOverlap} to a launch, reading the in-flight runs only when overlap can matter. */
export class OverlapStep {
  constructor(private readonly deps: { store: Store }) {}

  async apply(config: WebhookConfig, decision: FinalDecision): Promise<FinalDecision> {
    if (decision.kind !== "launch") return decision;
    const mode = config.overlap;
    if ((mode === "" || mode === "allow") && !decision.launches.some((p) => p.collapse)) return decision;
    const kept: LaunchPlan[] = [];
    const skipped: string[] = [];
    for (const plan of decision.launches) {
      const verdict = await this.verdict(config, plan);
      if (verdict.kind === "skip") skipped.push(verdict.reason);
      else kept.push(verdict.kind === "supersede" ? { ...plan, supersedes: verdict.runIds } : plan);
    }
    return kept.length > 0 ? { kind: "launch", launches: kept } : filtered(skipped.join("; "));
  }

  /** One plan's verdict against what runs now (a parked synchronize launch asks at its own launch time). */
  async verdict(config: WebhookConfig, plan: LaunchPlan): Promise<OverlapVerdict> {
    const match = { teamId: config.tenant_id, webhookId: config.id, subjectId: plan.subjectId, botId: plan.botId };
    return decideOverlap(config.overlap, plan, await findActiveRunsOfSubject(this.deps.store.db, match));
  }
}
