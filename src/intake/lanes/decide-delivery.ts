import type { WebhookConfig } from "../../webhooks/webhook-config.js";
import type { DeliveryContext } from "../pipeline/delivery-context.js";
import { filtered, invalid, type DeliveryDecision } from "../pipeline/delivery-decision.js";
import type { DeliveryEvent } from "../../forges/shared/delivery-event.js";
import { eventAllowed } from "../pipeline/filters.js";
import { decideGeneric } from "./generic-lane.js";
import { decideGithubLike } from "./github-like-lanes.js";
import { decideGitlab } from "./gitlab-lanes.js";

/**
 * What one verified, parsed delivery should do. Pure: the wiring supplies the config, the
 * event and what it knows (bot logins, debounce, the bot catalog), and acts on the verdict.
 */
export function decideDelivery(config: WebhookConfig, event: DeliveryEvent, context: DeliveryContext): DeliveryDecision {
  if (event.provider !== config.provider) return invalid("bad_payload", `event of ${event.provider} on a ${config.provider} webhook`);
  if (event.provider === "generic") return event.ping ? filtered("ping: nothing to launch") : decideGeneric(config, event, context);
  if (event.kind === "ping") return filtered("ping: nothing to launch");
  if (event.kind === "push") return filtered("push events do not launch");
  const allowed = eventAllowed(config.provider, config.event_allowlist, event);
  if (!allowed.pass) return filtered(allowed.reason);
  return event.provider === "forge_a" ? decideGitlab(config, event, context) : decideGithubLike(config, event, context);
}
