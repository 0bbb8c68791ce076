import type { WebhookConfig } from "../../webhooks/webhook-config.js";
import { normaliseLogin } from "./filters.js";
import type { IsKnownBot } from "./route-bots.js";

import type { GateSettings } from "../../forges/shared/delivery-event.js";

export type { GateSettings } from "../../forges/shared/delivery-event.js";

/** What the wiring knows beyond the config and the payload. */
export interface DeliveryContext {
  /**
   * The service's own forge identity: the app bot login (forge_b, forge_c) or the connected
   * bot account (forge_a). The config's review_request_logins are added by the decision.
   */
  botLogins: readonly string[];
  /** SERVICE_WEBHOOK_SYNC_DEBOUNCE in ms; 0 launches a synchronize at once. */
  syncDebounceMs: number;
  isKnownBot: IsKnownBot;
  /** The repository's gate; undefined when it names none (the gate lanes are off, reviews launch on open and push). */
  gate?: GateSettings;
}

/** Spec review rule 6: review_request_logins, then the forge bot login(s); never a `[bot]` suffix guess. */
export function identityLogins(config: WebhookConfig, context: DeliveryContext): Set<string> {
  return new Set([...config.review_request_logins, ...context.botLogins].map(normaliseLogin).filter((l) => l.length > 0));
}
