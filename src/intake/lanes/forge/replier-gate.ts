import type { WebhookConfig } from "../../../webhooks/webhook-config.js";
import { identityLogins, type DeliveryContext } from "../../pipeline/delivery-context.js";
import { loginMatches, normaliseLogin } from "../../pipeline/filters.js";
import type { PermissionGate } from "../../pipeline/forge-check.js";

export type ReplierVerdict = { ok: false; reason: string } | { ok: true; gate: PermissionGate | undefined };

/**
 * Review rule 3, its pure half: the loop guard (the bot's own identity never triggers), then
 * authorized_repliers, which admits without a forge call; anyone else needs a live role at
 * least min_replier_role, which the forge step asks for.
 */
export function replierGate(config: WebhookConfig, context: DeliveryContext, login: string | undefined, what: string): ReplierVerdict {
  if (login === undefined || login.trim() === "") return { ok: false, reason: `${what}: the payload names no user (fail closed)` };
  if (identityLogins(config, context).has(normaliseLogin(login))) return { ok: false, reason: `${what} by the bot's own identity (${login}) is ignored` };
  if (config.authorized_repliers.some((p) => loginMatches(p, login))) return { ok: true, gate: undefined };
  return { ok: true, gate: { login, minRole: config.min_replier_role } };
}

/** The filtered reason when the live role falls short. */
export function refusedReason(config: WebhookConfig, login: string, what: string): string {
  return `${what} by ${login}: not on authorized_repliers and repository role below ${config.min_replier_role}`;
}
