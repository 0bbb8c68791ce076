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

export interface CredentialTables {
  api_keys: ApiKeysTable;
  workflow_secrets: WorkflowSecretsTable;
}
