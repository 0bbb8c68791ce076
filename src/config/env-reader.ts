// Reading SERVICE_* variables: a reader that records every name it reads and each value's problem,
// and the parsers of the values that are more than a number or a word.
import { type Cidr, parseCidrList } from "../core/network-policy.js";

/** The process environment, as config.ts reads it. */
export type Env = Record<string, string | undefined>;

/** CIDRs, comma- or space-separated: a self-hosted forge on a private network is allowed here, never by default. */
export function allowedNetworks(raw: string, problems: string[]): Cidr[] {
  const { cidrs, bad } = parseCidrList(raw);
  if (bad.length > 0) problems.push(`SERVICE_FORGE_ALLOWED_NETWORKS: not CIDRs (such as 10.0.0.0/8 or fd00::/8): ${bad.join(", ")}`);
  return cidrs;
}

const PLATFORM_KEY_PREFIX = "SERVICE_PLATFORM_KEY_";

/** `SERVICE_PLATFORM_KEY_ANTHROPIC=sk-…` lends every team a key for provider `anthropic`; an empty value lends none. */
export function platformKeysOf(env: Env, problems: string[]): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(PLATFORM_KEY_PREFIX) || !value) continue;
    const suffix = name.slice(PLATFORM_KEY_PREFIX.length);
    if (/^[A-Z0-9][A-Z0-9_]{0,31}$/.test(suffix)) keys[suffix.toLowerCase()] = value;
    else problems.push(`${name}: the provider after ${PLATFORM_KEY_PREFIX} must be 1-32 of A-Z, 0-9 and _`);
  }
  return keys;
}

const ADDRESS_RE = /^[0-9a-fA-F:.]+(\/\d{1,3})?$/;

/** `false`, `true`, a hop count, or a comma-separated list of addresses and CIDRs. */
export function parseTrustProxy(raw: string, problems: string[]): boolean | number | string[] {
  const value = raw.trim().toLowerCase();
  if (value === "false" || value === "") return false;
  if (value === "true") return true;
  if (/^\d+$/.test(value)) return Number(value);
  const list = value
    .split(",")
    .map((a) => a.trim())
    .filter(Boolean);
  if (list.length > 0 && list.every((a) => ADDRESS_RE.test(a))) return list;
  problems.push(`SERVICE_TRUST_PROXY: must be false, true, a hop count or addresses/CIDRs, got ${JSON.stringify(raw)}`);
  return false;
}

/** Limits rule 2: invalid, negative or unset values become 0 (unlimited); a value given that fell back is warned of. */
export function lenientOf(read: Reader, name: string, warnings: string[]): number {
  const raw = read.string(name, "");
  if (raw.trim() === "") return 0;
  const n = Number(raw);
  if (Number.isFinite(n) && n >= 0) return n;
  warnings.push(`${name}=${JSON.stringify(raw)} is not a number of 0 or more: 0 (unlimited) is used`);
  return 0;
}

/** SERVICE_* names other parts of the project read: the CLI, the runner process, the tests. */
const READ_ELSEWHERE = new Set([
  "SERVICE_URL",
  "SERVICE_TOKEN",
  "SERVICE_RUNNER_URL",
  "SERVICE_RUNNER_TOKEN",
  "SERVICE_RUNNER_NAME",
  "SERVICE_RUNNER_BOTS_DIR",
]);
const READ_ELSEWHERE_PREFIXES = [PLATFORM_KEY_PREFIX, "SERVICE_TEST_"];

/** SERVICE_* variables set but read by nothing: most often a misspelt name, whose setting is silently the default. */
export function unknownNames(env: Env, known: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith("SERVICE_") || known.has(name) || READ_ELSEWHERE.has(name)) continue;
    if (READ_ELSEWHERE_PREFIXES.some((p) => name.startsWith(p))) continue;
    const near = [...known].find((k) => editDistance(k, name) <= 2);
    out.push(`${name} is not a setting of the service and is ignored${near ? ` (did you mean ${near}?)` : ""}`);
  }
  return out;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    prev = row;
  }
  return prev[b.length]!;
}

export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `90` (seconds), `500ms`, `30s`, `3m`, `1h`; `0` disables. */
export function parseDuration(raw: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(raw);
  if (!m) return undefined;
  return Math.round(Number(m[1]) * DURATION_UNITS[m[2] ?? "s"]!);
}

export class Reader {
  /** Every name read, set or not. */
  readonly known = new Set<string>();

  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  string(name: string, fallback: string): string {
    this.known.add(name);
    const raw = this.env[name];
    return raw === undefined || raw === "" ? fallback : raw;
  }

  integer(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    this.known.add(name);
    const raw = this.env[name];
    if (raw === undefined || raw === "") return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      this.problems.push(`${name}: must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
      return fallback;
    }
    return n;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    this.known.add(name);
    const raw = this.env[name];
    if (raw === undefined || raw === "") return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    this.problems.push(`${name}: must be one of ${allowed.join(", ")}, got ${JSON.stringify(raw)}`);
    return fallback;
  }

  duration(name: string, fallback: number): number {
    this.known.add(name);
    const raw = this.env[name];
    if (raw === undefined || raw === "") return fallback;
    const ms = parseDuration(raw);
    if (ms === undefined) {
      this.problems.push(`${name}: must be a duration such as 90, 30s, 3m or 500ms, got ${JSON.stringify(raw)}`);
      return fallback;
    }
    return ms;
  }
}
