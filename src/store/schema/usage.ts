/** Monthly counters: a new UTC month is a new row, so nothing ever resets. */
export interface OrgUsageTable {
  org_id: string;
  /** YYYY-MM, UTC. */
  month: string;
  runs: number;
  cost_micro: number;
  input_tokens: number;
  output_tokens: number;
  /** Command-line delegates' own token total, kept apart from input/output. */
  aggregate_tokens: number;
  updated_at: number;
}

/**
 * PostgreSQL only (migration 0011): more of an org's month's runs, counted by launches no
 * limit locks, one row per slot so concurrent connections seldom write the same row. The
 * month's run count is `org_usage.runs` plus these.
 */
export interface OrgRunTalliesTable {
  org_id: string;
  month: string;
  slot: number;
  runs: number;
}

/**
 * The credential ledger: one meter row per (fingerprint, provider, tier, tenant, month, repo).
 * `repo` is '' when the run named no repository (a key column cannot be NULL on PostgreSQL).
 * Metered money and subscription estimates are kept apart and never summed.
 */
export interface CredentialUsageTable {
  fingerprint: string;
  provider: string;
  tier: "team" | "pool" | "platform";
  team_id: string;
  month: string;
  repo: string;
  metered_micro: number;
  estimated_micro: number;
  /** Execution attempts charged to this row. */
  attempts: number;
  input_tokens: number;
  output_tokens: number;
  aggregate_tokens: number;
  updated_at: number;
}

export interface UsageTables {
  org_usage: OrgUsageTable;
  org_run_tallies: OrgRunTalliesTable;
  credential_usage: CredentialUsageTable;
}
