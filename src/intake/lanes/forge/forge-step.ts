import type { Logger } from "pino";
import type { WebhookConfig } from "../../../webhooks/webhook-config.js";
import { filtered, type FinalDecision } from "../../pipeline/delivery-decision.js";
import type { DeliveryContext } from "../../pipeline/delivery-context.js";
import type { ForgeCheck } from "../../pipeline/forge-check.js";
import { resolveGate } from "./gate-step.js";
import { explain, passGate, priorReviewOf, provenPull, threadContextOf } from "./forge-checks.js";
import { finishPlans } from "./finish-plans.js";
import type { WebhookForges } from "./webhook-forge.js";

/**
 * Performs a lane's forge checks (forge-check.ts) in order, gate, pull request, thread, and
 * decides: launch, filtered, or a forge failure (review rule 7: a launch_error row, nothing
 * launched, nothing posted). Its calls share the lane's budget and are made before any store
 * write of the delivery.
 */
export class ForgeStep {
  constructor(private readonly deps: { forges: WebhookForges; log: Logger }) {}

  async resolve(config: WebhookConfig, check: ForgeCheck, context: DeliveryContext): Promise<FinalDecision> {
    const decision = await this.perform(config, check, context);
    // The row names the cause too; the log lets an operator see a forge going down across webhooks.
    if (decision.kind === "forge_error") this.deps.log.warn({ webhook_id: config.id, lane: check.lane, reason: decision.reason }, "forge check failed");
    return decision;
  }

  private async perform(config: WebhookConfig, check: ForgeCheck, context: DeliveryContext): Promise<FinalDecision> {
    const opened = await this.deps.forges.open(config, check.provider);
    if (!opened.ok) return filtered(`${check.lane} lane cannot ask the forge: ${opened.reason}`);
    const forge = opened.client;
    if (check.gateCheck) return resolveGate(forge, config, check.repo, check.gateCheck, context);
    const refused = await passGate(forge, check);
    // An untrusted author's issue: its launches wait for approval (a card with needs:approval when a board is used).
    if (refused) return check.lane === "trusted_author" && refused.kind === "filtered" ? { ...refused, held: finishPlans(config, check, undefined) } : refused;
    if (check.refusal) {
      await explain(forge, check, check.refusal.reply);
      return filtered(check.refusal.reason);
    }
    const pull = await provenPull(forge, check);
    if ("stop" in pull) return pull.stop;
    const thread = await threadContextOf(forge, check);
    if ("stop" in thread) return thread.stop;
    const priorReview = await priorReviewOf(forge, check, pull.value);
    // Best effort, and only once every check has answered: an 👀 that fails launches all the same.
    if (check.respond?.acknowledge) await forge.react(check.repo, check.number, check.respond, "eyes");
    return { kind: "launch", launches: finishPlans(config, check, pull.value, { threadContext: thread.value, priorReview }) };
  }
}
