import fs from "node:fs";
import path from "node:path";
import { LIMIT_FIELDS, MAX_LIMIT, type ResourceLimits } from "../../config/resource-limits.js";
import { KEY_PROVIDER_RE } from "../../credentials/credential-names.js";

/** One bot of the bots file: the command the reference runner executes for it. */
export interface BotCommand {
  id: string;
  /** argv; a first word `node` means the Node binary running the service. */
  command: string[];
  /** Killed after this long; default 600 s. */
  timeoutMs: number;
  /** Extra environment for the bot, on top of the run's variables. */
  env: Record<string, string>;
  /** Providers the bot calls: each attempt is handed a key for each (docs/webhooks.md, "Keys and secrets a run is handed"). */
  providers: string[];
  /**
   * What the bot's BOT_FORGE_TOKEN may do on its repository (`forge_permissions`, GitHub's names,
   * read or write); undefined: contents and metadata read, pull_requests write.
   */
  forgePermissions?: Record<string, "read" | "write">;
  /** The resource limits its entry sets (`limits`, null: none), over the runner's defaults (SERVICE_RUNNER_LIMIT_*). */
  limits?: Partial<ResourceLimits>;
  /** The bots file's folder: the command's working directory, so relative paths resolve there. */
  cwd: string;
}

export class BotsFileError extends Error {}

const DEFAULT_TIMEOUT_MS = 600_000;
const BOT_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * The reference runner's bots file (JSON): `{ "<bot id>": { "command": [argv…],
 * "timeout_seconds"?: n, "env"?: {…}, "providers"?: [names…], "limits"?: {…} } }`. Read on first use and again when the file changes,
 * so editing it needs no restart.
 */
export class BotCommands {
  private cache: { mtimeMs: number; bots: Map<string, BotCommand> } | undefined;

  constructor(readonly file: string) {}

  /** The bot's command, or undefined for an unknown bot (or a missing file). */
  get(botId: string): BotCommand | undefined {
    return this.load().get(botId);
  }

  has(botId: string): boolean {
    return this.load().has(botId);
  }

  /** The bots file is the same for every org. */
  async isKnownBot(_orgId: string, botId: string): Promise<boolean> {
    return this.has(botId);
  }

  ids(): string[] {
    return [...this.load().keys()].sort();
  }

  private load(): Map<string, BotCommand> {
    let mtimeMs: number;
    try {
      mtimeMs = fs.statSync(this.file).mtimeMs;
    } catch {
      return new Map();
    }
    if (this.cache?.mtimeMs === mtimeMs) return this.cache.bots;
    const bots = parseBotsFile(fs.readFileSync(this.file, "utf8"), path.dirname(this.file), this.file);
    this.cache = { mtimeMs, bots };
    return bots;
  }
}

export function parseBotsFile(text: string, dir: string, name = "bots file"): Map<string, BotCommand> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new BotsFileError(`${name}: not valid JSON`);
  }
  if (!isObject(raw)) throw new BotsFileError(`${name}: must be an object of bot id → {command, timeout_seconds?, env?}`);
  const bots = new Map<string, BotCommand>();
  for (const [id, entry] of Object.entries(raw)) {
    if (id.startsWith("$")) continue; // "$comment" and friends
    if (!BOT_ID.test(id)) throw new BotsFileError(`${name}: bot id ${JSON.stringify(id)} must match ${BOT_ID}`);
    bots.set(id, botCommand(name, id, entry, dir));
  }
  return bots;
}

/** One entry of the bots file, checked field by field. */
function botCommand(name: string, id: string, entry: unknown, dir: string): BotCommand {
  if (!isObject(entry) || !Array.isArray(entry.command) || entry.command.length === 0 || !entry.command.every((w) => typeof w === "string")) {
    throw new BotsFileError(`${name}: ${id}.command must be a non-empty array of strings`);
  }
  const timeout = entry.timeout_seconds;
  if (timeout !== undefined && (typeof timeout !== "number" || !(timeout > 0))) {
    throw new BotsFileError(`${name}: ${id}.timeout_seconds must be a positive number`);
  }
  const env = entry.env ?? {};
  if (!isObject(env) || !Object.values(env).every((v) => typeof v === "string")) {
    throw new BotsFileError(`${name}: ${id}.env must map names to strings`);
  }
  const providers = entry.providers ?? [];
  if (!Array.isArray(providers) || !providers.every((p) => typeof p === "string" && KEY_PROVIDER_RE.test(p))) {
    throw new BotsFileError(`${name}: ${id}.providers must list provider names such as anthropic (lower case)`);
  }
  return {
    id,
    ...narrowings(name, id, entry),
    command: entry.command as string[],
    timeoutMs: timeout === undefined ? DEFAULT_TIMEOUT_MS : Math.round(timeout * 1000),
    env: env as Record<string, string>,
    providers: [...new Set(providers as string[])],
    cwd: dir,
  };
}

/** What an entry may narrow: its forge token's permissions and its processes' resource limits. */
function narrowings(name: string, id: string, entry: Record<string, unknown>): Pick<BotCommand, "forgePermissions" | "limits"> {
  const forgePermissions = entry.forge_permissions;
  if (forgePermissions !== undefined && !isPermissionMap(forgePermissions)) {
    throw new BotsFileError(`${name}: ${id}.forge_permissions must map permission names (contents, pull_requests …) to read or write`);
  }
  const limits = entry.limits === undefined ? undefined : botLimits(entry.limits);
  if (limits instanceof Error) throw new BotsFileError(`${name}: ${id}.limits${limits.message}`);
  return { ...(forgePermissions !== undefined && { forgePermissions }), ...(limits !== undefined && { limits }) };
}

/**
 * A bots file entry's `limits` (`{"memory_mib": 8192, "processes": 256, …}`, 0: none), as the
 * runner applies them; an Error's message ends the sentence "<bot>.limits…" that says what is wrong. Also read from the runner protocol's ticket.
 */
export function botLimits(raw: unknown): Partial<ResourceLimits> | Error {
  const names = LIMIT_FIELDS.map((f) => f.file).join(", ");
  if (!isObject(raw)) return new Error(` must be an object of ${names}`);
  const limits: Partial<ResourceLimits> = {};
  for (const [k, v] of Object.entries(raw)) {
    const field = LIMIT_FIELDS.find((f) => f.file === k);
    if (!field) return new Error(`: unknown limit ${JSON.stringify(k)} (known: ${names})`);
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > MAX_LIMIT) return new Error(`.${k} must be a whole number (0: no limit)`);
    limits[field.key] = v === 0 ? null : v;
  }
  return limits;
}

/** Limits as the bots file writes them (0: none), for the runner protocol's ticket. */
export function limitsWire(limits: Partial<ResourceLimits>): Partial<Record<(typeof LIMIT_FIELDS)[number]["file"], number>> {
  const wire: Partial<Record<(typeof LIMIT_FIELDS)[number]["file"], number>> = {};
  for (const f of LIMIT_FIELDS) {
    const v = limits[f.key];
    if (v !== undefined) wire[f.file] = v ?? 0;
  }
  return wire;
}

function isPermissionMap(v: unknown): v is Record<string, "read" | "write"> {
  return isObject(v) && Object.entries(v).every(([k, x]) => /^[a-z_]{1,64}$/.test(k) && (x === "read" || x === "write"));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
