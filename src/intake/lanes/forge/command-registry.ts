import { BRANCH_IMPROVE_BOT } from "../../../bots/bot-id.js";
import type { BotRule, WebhookConfig } from "../../../webhooks/webhook-config.js";
import type { ParsedCommand } from "../../pipeline/command-note.js";
import { botPermitted, REVIEW_BOT_ID, type IsKnownBot } from "../../pipeline/route-bots.js";

export type CommandWhen = BotRule["commands"][string];

export const CONVERSE_BOT = "converse";

/**
 * The commands every bot answers when its rule names none (and on legacy configs): a bare
 * `/re-review` is the review bot's, the same with a question the converse bot's, `/improve` the
 * branch-improvement bot's.
 */
export const DEFAULT_COMMANDS: Readonly<Record<string, Readonly<Record<string, CommandWhen>>>> = {
  [REVIEW_BOT_ID]: { "re-review": "when_args_empty" },
  [CONVERSE_BOT]: { "re-review": "when_args_present" },
  [BRANCH_IMPROVE_BOT]: { improve: "always" },
};

/** The approve subcommand (`/approve [reason]`, or `/<command> approve [reason]`), taken before routing. */
export function isApproval(command: ParsedCommand): boolean {
  return command.name === "approve" || /^approve(\s|$)/i.test(command.args);
}

export interface CommandBot {
  botId: string;
  ruleVars: Readonly<Record<string, string>>;
  when: CommandWhen;
}

/** `unknown`: no bot's command map names the command (rather than its bot not being permitted). */
export type CommandRouting = { ok: true; bots: CommandBot[]; fanOut: boolean } | { ok: false; reason: string; unknown: boolean };

function claimsCommand(commands: Readonly<Record<string, CommandWhen>>, command: ParsedCommand): CommandWhen | undefined {
  const when = commands[command.name];
  if (when === "always") return when;
  if (when === "when_args_empty") return command.args === "" ? when : undefined;
  if (when === "when_args_present") return command.args !== "" ? when : undefined;
  return undefined;
}

/**
 * The bots a command goes to: on a fan-out config every permitted rule whose command map (or,
 * naming none, the default one) claims it; on a legacy config the default registry within
 * bot_ids. A command nobody answers is unknown; one whose bot is not permitted says which.
 */
export function routeCommand(config: WebhookConfig, isKnownBot: IsKnownBot, command: ParsedCommand): CommandRouting {
  const claiming = registryOf(config).flatMap((r) => {
    const when = claimsCommand(r.commands, command);
    return when === undefined ? [] : [{ botId: r.botId, ruleVars: r.ruleVars, when }];
  });
  if (claiming.length === 0) return { ok: false, reason: `unknown command: /${command.name}`, unknown: true };
  const bots = claiming.filter((b, i) => claiming.findIndex((o) => o.botId === b.botId) === i && botPermitted(config, b.botId) && isKnownBot(b.botId));
  if (bots.length === 0) {
    return { ok: false, reason: `/${command.name}: bot not permitted on this webhook: ${claiming.map((b) => b.botId).join(", ")}`, unknown: false };
  }
  return { ok: true, bots, fanOut: config.bot_rules !== null };
}

/** The command names a commenter may use on this webhook: those of its permitted bots, sorted. */
export function knownCommands(config: WebhookConfig, isKnownBot: IsKnownBot): string[] {
  const names = registryOf(config)
    .filter((r) => botPermitted(config, r.botId) && isKnownBot(r.botId))
    .flatMap((r) => Object.keys(r.commands));
  return [...new Set(names)].sort();
}

/** Each bot's command map: its rule's on a fan-out config (the default when it names none), else the default registry. */
function registryOf(config: WebhookConfig) {
  const rules: { botId: string; ruleVars: Readonly<Record<string, string>>; commands: Readonly<Record<string, CommandWhen>> }[] =
    config.bot_rules !== null
      ? config.bot_rules.map((r) => ({
          botId: r.bot_id,
          ruleVars: r.launch_vars,
          commands: Object.keys(r.commands).length > 0 ? r.commands : (DEFAULT_COMMANDS[r.bot_id] ?? {}),
        }))
      : Object.entries(DEFAULT_COMMANDS).map(([botId, commands]) => ({ botId, ruleVars: {}, commands }));
  return rules;
}
