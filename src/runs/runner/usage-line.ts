import { microToUsd, usdToMicro } from "../../core/money.js";
import { CREDENTIAL_TIERS, type CredentialTier, type UsageReport } from "../../metering/metering.js";

/** One `{"usage": {…}}` line a bot printed on stdout, money already in micro-USD; `id` is its optional report id. */
export type BotUsageLine = Omit<UsageReport, "reportId"> & { id: string | null };

/**
 * Parses a stdout line of the usage protocol: a JSON object with a `usage` object holding
 * cost_usd, input_tokens, output_tokens, aggregate_tokens, fingerprint, provider, tier, repo,
 * amount_type and an optional id. Any other line is the bot's own output: undefined.
 */
export function parseUsageLine(line: string): BotUsageLine | undefined {
  const text = line.trim();
  if (!text.startsWith("{") || !text.includes('"usage"')) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const u = (raw as { usage?: unknown }).usage;
  if (typeof u !== "object" || u === null || Array.isArray(u)) return undefined;
  return usageOf(u as Record<string, unknown>);
}

/** A usage object's fields (the `usage` of a bot's line, or one a remote runner passes on), read leniently. */
export function usageOf(o: Record<string, unknown>): BotUsageLine {
  const tier = typeof o.tier === "string" && (CREDENTIAL_TIERS as readonly string[]).includes(o.tier) ? (o.tier as CredentialTier) : null;
  return {
    id: str(o.id),
    costMicro: usdToMicro(count(o.cost_usd)),
    inputTokens: Math.round(count(o.input_tokens)),
    outputTokens: Math.round(count(o.output_tokens)),
    aggregateTokens: Math.round(count(o.aggregate_tokens)),
    fingerprint: str(o.fingerprint),
    provider: str(o.provider),
    tier,
    repo: str(o.repo),
    amountType: o.amount_type === "estimate" ? "estimate" : "metered",
  };
}

/** Negative, missing or non-numeric amounts count as 0 (unknown), never as a credit. */
const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);
const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 && v.length <= 512 ? v : null);

/** A provider's usage window a bot found exhausted: `reset_at` is when it opens again (epoch ms). */
export interface UsageWindow {
  provider: string;
  resetAt: number;
}

/**
 * Parses a `{"usage_window": {"provider": "…", "reset_at": "<ISO 8601>"}}` line: the bot stops
 * because its provider refuses it until `reset_at`. Anything else: undefined.
 */
export function parseUsageWindowLine(line: string): UsageWindow | undefined {
  const text = line.trim();
  if (!text.startsWith("{") || !text.includes('"usage_window"')) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const w = (raw as { usage_window?: { provider?: unknown; reset_at?: unknown } }).usage_window;
  const resetAt = typeof w?.reset_at === "string" ? Date.parse(w.reset_at) : Number.NaN;
  if (!Number.isFinite(resetAt)) return undefined;
  return { provider: str(w?.provider) ?? "unknown", resetAt };
}

/** A usage line as the bot printed it (its `usage` object): how a remote runner passes it on. */
export function usageWire(u: BotUsageLine): Record<string, unknown> {
  return {
    ...(u.id !== null && { id: u.id }),
    cost_usd: microToUsd(u.costMicro),
    input_tokens: u.inputTokens,
    output_tokens: u.outputTokens,
    aggregate_tokens: u.aggregateTokens,
    fingerprint: u.fingerprint,
    provider: u.provider,
    tier: u.tier,
    repo: u.repo,
    amount_type: u.amountType,
  };
}
