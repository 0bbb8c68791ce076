export type CredentialTier = "team" | "pool" | "platform";
export const CREDENTIAL_TIERS: readonly CredentialTier[] = ["team", "pool", "platform"];

/** What a runner reports for an execution attempt (possibly in several reports). */
export interface UsageReport {
  /** Unique within the run: a repeated report with the same id counts once. */
  reportId: string;
  /** 0 means unknown, never free: the cost figure is a floor. */
  costMicro: number;
  inputTokens: number;
  outputTokens: number;
  /** A command-line delegate's own token total, kept apart from input/output. */
  aggregateTokens: number;
  fingerprint: string | null;
  provider: string | null;
  tier: CredentialTier | null;
  /** Forge slug (owner/repo); when absent the run's repo_url gives it. */
  repo: string | null;
  /** `estimate` for subscription-equivalent prices: not money spent. */
  amountType: "metered" | "estimate";
}
