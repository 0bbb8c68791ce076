import type { BotRule, WebhookConfig } from "../../webhooks/webhook-config.js";
import { filtered, invalid, type DeliveryDecision } from "./delivery-decision.js";
import { loginMatches } from "./filters.js";

/** The bot every forge lane falls back to when nothing else decides. */
export const REVIEW_BOT_ID = "review-pr";

/** Catalog lookup supplied by the wiring. */
export type IsKnownBot = (botId: string) => boolean;

export interface RoutedBot {
  botId: string;
  /** The bot rule's launch_vars; empty on a legacy config. */
  ruleVars: Readonly<Record<string, string>>;
}

export type BotRouting = { ok: true; bots: RoutedBot[]; fanOut: boolean } | { ok: false; decision: DeliveryDecision };

export interface RouteInput {
  /** Forge lanes fall back to `review-pr`; generic has no fallback (400 missing bot). */
  lane: "forge" | "generic";
  /** Normalised event kind, matched against bot rules' `events`. */
  kind: string;
  /** The bot a generic request names. */
  requestedBot?: string;
  /** The subject's author, for bot-rule author lists. */
  author?: string;
  /** Labels on the subject (and any just applied), for bot-rule label filters. */
  labels?: readonly string[];
}

const isWildcard = (config: WebhookConfig) => config.wildcard_bots && config.bot_ids.includes("*");

/** bot_ids scope: `["*"]` needs wildcard_bots; an empty list permits no bot. */
export function botPermitted(config: WebhookConfig, botId: string): boolean {
  return botId !== "*" && (isWildcard(config) || config.bot_ids.includes(botId));
}

function checkBot(config: WebhookConfig, isKnownBot: IsKnownBot, botId: string): DeliveryDecision | undefined {
  if (!botPermitted(config, botId)) return invalid("bot_not_permitted", `bot not permitted: ${botId} (add it to the webhook's bot_ids)`);
  if (!isKnownBot(botId)) return invalid("unknown_bot", `unknown bot: ${botId}`);
  return undefined;
}

function ruleVarsFor(config: WebhookConfig, botId: string): Readonly<Record<string, string>> {
  return config.bot_rules?.find((r) => r.bot_id === botId)?.launch_vars ?? {};
}

/** Legacy (and generic) routing: the named bot, default_bot_id, the single bot in scope, then review-pr on forges. */
function routeSingle(config: WebhookConfig, isKnownBot: IsKnownBot, input: RouteInput): BotRouting {
  const only = config.bot_ids.length === 1 ? config.bot_ids[0] : undefined;
  const single = only === "*" ? undefined : only;
  const chosen = input.requestedBot ?? config.default_bot_id ?? single ?? (input.lane === "forge" ? REVIEW_BOT_ID : undefined);
  if (chosen === undefined) return { ok: false, decision: invalid("missing_bot", "generic: missing bot") };
  const bad = checkBot(config, isKnownBot, chosen);
  if (bad) return { ok: false, decision: bad };
  return { ok: true, bots: [{ botId: chosen, ruleVars: ruleVarsFor(config, chosen) }], fanOut: false };
}

function labelFilterPasses(rule: BotRule, labels: readonly string[] | undefined): boolean {
  if (rule.label_filter.length === 0) return true;
  const wanted = rule.label_filter.map((l) => l.trim().toLowerCase());
  if (wanted.includes("*")) return true;
  return (labels ?? []).some((l) => wanted.includes(l.trim().toLowerCase()));
}

/**
 * Whether `rule` claims the event. An author allowlist needs a named author (fail closed);
 * a denylist (own, plus other exclusive bots' allowlists) passes an unnamed one.
 */
function claims(rule: BotRule, extraDeny: readonly string[], input: RouteInput): boolean {
  const kinds = rule.events.map((e) => e.trim().toLowerCase());
  if (!kinds.includes("*") && !kinds.includes(input.kind)) return false;
  const author = input.author;
  if (rule.author_allowlist.length > 0 && (author === undefined || !rule.author_allowlist.some((p) => loginMatches(p, author)))) {
    return false;
  }
  if (author !== undefined && [...rule.author_denylist, ...extraDeny].some((p) => loginMatches(p, author))) return false;
  return labelFilterPasses(rule, input.labels);
}

/** Fan-out: every co-enabled bot whose rule claims the event; none claiming is a 200 filter. */
function routeFanOut(config: WebhookConfig, rules: readonly BotRule[], isKnownBot: IsKnownBot, input: RouteInput): BotRouting {
  const enabled = rules.filter((r) => botPermitted(config, r.bot_id) && isKnownBot(r.bot_id));
  const bots: RoutedBot[] = [];
  for (const rule of enabled) {
    if (bots.some((b) => b.botId === rule.bot_id)) continue;
    // Exclusive author scope: other bots' exclusive allowlists join this bot's denylist.
    const extraDeny = enabled.filter((o) => o.bot_id !== rule.bot_id && o.author_scope === "exclusive").flatMap((o) => o.author_allowlist);
    if (claims(rule, extraDeny, input)) bots.push({ botId: rule.bot_id, ruleVars: rule.launch_vars });
  }
  if (bots.length === 0) return { ok: false, decision: filtered("no bot claims this event") };
  return { ok: true, bots, fanOut: true };
}

/** Forge events on a fan-out config route through bot_rules; generic requests name one bot. */
export function routeBots(config: WebhookConfig, isKnownBot: IsKnownBot, input: RouteInput): BotRouting {
  if (config.bot_rules !== null && input.lane === "forge") return routeFanOut(config, config.bot_rules, isKnownBot, input);
  return routeSingle(config, isKnownBot, input);
}
