/**
 * An org's monthly spend: a new UTC month is a new row, so nothing ever resets. Its runs are
 * counted apart, in `org_run_tallies`.
 */
export interface OrgUsageTable {
  org_id: string;
  /** YYYY-MM, UTC. */
  month: string;
  cost_micro: number;
  input_tokens: number;
  output_tokens: number;
  /** Command-line delegates' own token total, kept apart from input/output. */
  aggregate_tokens: number;
  updated_at: number;
}

/**
 * An org's runs in a UTC month, the one place they are counted (migration 0053): the count is
 * the sum of the month's rows, written only by addOrgRuns (store/delivery-path/add-org-runs.ts)
 * and PostgreSQL's add_org_runs. A row per slot: on PostgreSQL the backend's process id picks
 * it, so concurrent connections seldom write the same row; SQLite has one writer and slot 0.
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
