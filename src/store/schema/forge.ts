import type { ColumnType } from "kysely";

/** A team's connection to a forge and the repositories provisioned through it (store/forge-connections.ts). */
export interface ForgeConnectionsTable {
  id: string;
  team_id: string;
  provider: string;
  /** The forge's web root; null for the public GitHub or GitLab. */
  base_url: string | null;
  /** `token`, or `app`: a GitHub App (its id, private key and installation, sealed as JSON). */
  auth: ColumnType<"token" | "app", "token" | "app" | undefined, "token" | "app">;
  /** The credential, sealed under the connection id; never returned. */
  sealed_key_id: string;
  sealed_blob: string;
  token_last4: string;
  /** The login the forge says the credential belongs to: the connection's bot identity. */
  bot_login: string;
  bot_user_id: number;
  /** Scheme plus host the forge is told to call; null: the service's base URL. */
  webhook_base_url: string | null;
  created_by: string | null;
  created_at: number;
  updated_at: number;
}

/** One repository wired through a connection; its webhook config carries `provisioned_by` = this id. */
export interface RepoBotsTable {
  id: string;
  connection_id: string;
  team_id: string;
  /** The forge's path (`owner/name`; GitLab: the project's full path). */
  repo: string;
  /** The hook's id on the forge, and the address it was last told; null until a forge write is committed. */
  hook_id: string | null;
  hook_url: string | null;
  /** Epoch ms when the hook's secret was last committed (provision or repair); null until then. */
  hook_written_at: ColumnType<number | null, number | null | undefined, number | null>;
  gate_context: string | null;
  auto_fix_on_gate_failure: number;
  /** 1: the review launches when the gate passes on the head, not on open and push. */
  review_after_gate: ColumnType<number, number | undefined, number>;
  /** Epoch ms until which one provision holds the right to write this repository's hook. */
  writing_until: ColumnType<number, number | undefined, number>;
  /** The security-read org token (security_read_enabled): the workflow secret holding it; null when not minted. */
  security_secret_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The forge's id for the token (GitLab's); null on GitHub, whose installation tokens have none. */
  security_forge_token_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Epoch ms: when the token stops working, and when its successor is minted. */
  security_expires_at: ColumnType<number | null, number | null | undefined, number | null>;
  security_renew_at: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: number;
  updated_at: number;
}

/** A pull request's automatic gate fixes in a row, each followed by another failure (reset when the gate passes). */
export interface GateFixStreaksTable {
  webhook_id: string;
  subject_id: string;
  gate: string;
  fixes: number;
  updated_at: number;
}

export interface ForgeTables {
  forge_connections: ForgeConnectionsTable;
  repo_bots: RepoBotsTable;
  gate_fix_streaks: GateFixStreaksTable;
}
