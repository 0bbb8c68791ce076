/** Stored API keys and workflow secrets, sealed at rest under their own id. */
export interface ApiKeysTable {
  id: string;
  org_id: string;
  /** Owning team; null for an org-shared key. */
  team_id: string | null;
  provider: string;
  name: string;
  sealed_key_id: string;
  sealed_blob: string;
  last4: string;
  /** SHA-256 hex of the secret: the credential ledger's key. */
  fingerprint: string;
  created_by: string | null;
  created_at: number;
}

export interface WorkflowSecretsTable {
  id: string;
  org_id: string;
  team_id: string;
  name: string;
  sealed_key_id: string;
  sealed_blob: string;
  last4: string;
  fingerprint: string;
  created_by: string | null;
  created_at: number;
}

/** A key or secret handed to one execution attempt: which one, never its value. */
export interface AttemptCredentialsTable {
  run_id: string;
  attempt: number;
  kind: "key" | "secret";
  /** The provider of a key; the name a webhook gives a secret. */
  name: string;
  /** A stored key's or secret's id; `platform:<provider>` for a platform key. */
  credential_id: string;
  credential_name: string;
  last4: string;
  fingerprint: string;
  /** The ledger tier of a key; null for a secret. */
  tier: "team" | "pool" | "platform" | null;
  /** `webhook`, `team`, `pool` or `platform` for a key; `webhook` for a secret. */
  source: string;
  created_at: number;
}

/** A forge token the service minted and hands out no more, revoked once no running attempt holds it. */
export interface ForgeTokensToRevokeTable {
  /** SHA-256 hex of the token, as attempt_credentials records it. */
  fingerprint: string;
  team_id: string;
  connection_id: string;
  repo: string;
  /** GitLab's access token id; null where the token itself is the handle (GitHub). */
  forge_token_id: string | null;
  /** The token, sealed under its fingerprint. */
  sealed_key_id: string;
  sealed_blob: string;
  /** Epoch ms; past it there is nothing left to revoke. */
  expires_at: number;
  /** Epoch ms: not revoked before. */
  not_before: number;
  created_at: number;
}

export interface CredentialTables {
  api_keys: ApiKeysTable;
  workflow_secrets: WorkflowSecretsTable;
  attempt_credentials: AttemptCredentialsTable;
  forge_tokens_to_revoke: ForgeTokensToRevokeTable;
}
