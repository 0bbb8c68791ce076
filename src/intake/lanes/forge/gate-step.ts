import type { ForgeClient } from "../../../forges/shared/forge-client.js";
import type { WebhookConfig } from "../../../webhooks/webhook-config.js";
import type { DeliveryContext } from "../../pipeline/delivery-context.js";
import { filtered, type FinalDecision } from "../../pipeline/delivery-decision.js";
import type { GateCheck } from "../../../forges/shared/delivery-event.js";
import { decideGateOnPull } from "../gate-lane.js";
import { forgeError } from "./forge-checks.js";

/**
 * The gate's pull request, read from the forge: the one the payload names, else the open one
 * whose head is the commit (a status event names none; GitHub names none for a fork). Then the
 * pure decision on what the forge said.
 */
export async function resolveGate(forge: ForgeClient, config: WebhookConfig, repo: string, check: GateCheck, context: DeliveryContext): Promise<FinalDecision> {
  let number = check.pulls[0];
  if (number === undefined) {
    const found = await forge.pullForCommit(repo, check.sha);
    if (!found.ok) return forgeError(`finding the pull request of ${check.sha.slice(0, 12)}`, found.error);
    if (found.value === null) return filtered(`gate ${check.result.name} on ${check.sha.slice(0, 12)}: no open pull request of this repository has it as head`);
    number = found.value;
  }
  const pull = await forge.pullRequest(repo, number);
  if (!pull.ok) return forgeError(`resolving pull request ${number}`, pull.error);
  return decideGateOnPull(config, check, number, pull.value, context);
}
