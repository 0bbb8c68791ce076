import type { Generated } from "kysely";

/** Timestamps are integer milliseconds since the epoch; booleans are 0/1; JSON is text. */
export interface OrgsTable {
  id: string;
  name: string;
  status: "active" | "suspended" | "read-only";
  monthly_cost_cap_micro: number;
  monthly_run_quota: number;
  memory_quota_bytes: number;
  /** `all` (every team of the org), `none`, or a JSON array of team ids. */
  credential_audience: string;
  monthly_webhook_calls: number;
  /** The org's layer of the usage-window retry policy: null is "not set here". */
  retry_usage_window: number | null;
  retry_max_attempts: number | null;
  retry_max_wait: number | null;
  retry_jitter: number | null;
  /** Whose runners claim the org's runs: `platform` (the default) or `org` (its own runner tokens). */
  runner_pool: Generated<"platform" | "org">;
  created_at: number;
  updated_at: number;
}

export interface TeamsTable {
  id: string;
  org_id: string;
  name: string;
  status: "active" | "suspended" | "read-only";
  max_concurrent_runs: number;
  launch_rate_per_min: number;
  /** The issue lanes' use of the team's board: off, track or coordinate. */
  board_mode: Generated<string>;
  created_at: number;
  updated_at: number;
}

export interface UsersTable {
  id: string;
  login: string;
  name: string;
  super_admin: number;
  created_at: number;
  /** Set while the user is deactivated: none of their tokens authenticates. */
  deactivated_at: number | null;
  /** `scrypt$…` (see core/passwords.ts); null until a password is set. */
  password_hash: string | null;
  password_set_at: number | null;
  /** Set when an admin chose the password: the next sign-in may only change it. */
  password_change_required: Generated<number>;
  /** Failed sign-ins since the last success or lock. */
  failed_logins: Generated<number>;
  locked_until: number | null;
}

export interface OrgMembersTable {
  org_id: string;
  user_id: string;
  role: "member" | "admin";
  created_at: number;
}

export interface TeamMembersTable {
  team_id: string;
  user_id: string;
  role: "member" | "admin";
  created_at: number;
}

export interface AccessTokensTable {
  id: string;
  user_id: string;
  name: string;
  /** SHA-256 of the token: the lookup key; the plaintext is kept nowhere. */
  fingerprint: string;
  /** Salted SHA-256, checked after the lookup. */
  hash: string;
  last4: string;
  /** `user`, `admin` (minted by a super-admin), `env` (SERVICE_ADMIN_TOKEN) or `bootstrap`. */
  source: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  /** SHA-256 of the ses_ token, the lookup key; `hash` is its salted hash. */
  fingerprint: string;
  hash: string;
  /** The address the sign-in came from. */
  address: string;
  /** 1 while the session may only change the password. */
  password_change_required: number;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface PasswordResetsTable {
  id: string;
  user_id: string;
  /** SHA-256 of the prt_ token; the token carries 256 random bits. */
  fingerprint: string;
  created_by: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface AuditLogTable {
  id: string;
  at: number;
  actor_id: string | null;
  action: string;
  target_type: string;
  target_id: string;
  org_id: string | null;
  team_id: string | null;
  /** JSON object; never holds a secret. */
  detail: string;
}

/** One address's failed sign-ins in its current fixed window. */
export interface SignInAddressFailuresTable {
  address: string;
  window_start: number;
  failures: number;
}

export interface TenancyTables {
  sign_in_address_failures: SignInAddressFailuresTable;
  orgs: OrgsTable;
  teams: TeamsTable;
  users: UsersTable;
  org_members: OrgMembersTable;
  team_members: TeamMembersTable;
  access_tokens: AccessTokensTable;
  audit_log: AuditLogTable;
  sessions: SessionsTable;
  password_resets: PasswordResetsTable;
}
