import type { Insertable, Selectable } from "kysely";
import type { ApiKeysTable, WorkflowSecretsTable } from "./schema/credentials.js";
import type { Db } from "./db.js";

export type ApiKeyRow = Selectable<ApiKeysTable>;
export type WorkflowSecretRow = Selectable<WorkflowSecretsTable>;

// API keys

export async function insertApiKey(db: Db, row: Insertable<ApiKeysTable>): Promise<void> {
  await db.insertInto("api_keys").values(row).execute();
}

export function findApiKey(db: Db, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom("api_keys").selectAll().where("id", "=", id).executeTakeFirst();
}

export function listTeamApiKeys(db: Db, teamId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom("api_keys").selectAll().where("team_id", "=", teamId).orderBy("created_at").orderBy("id").execute();
}

/** The org-shared keys (no owning team). */
export function listOrgApiKeys(db: Db, orgId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom("api_keys").selectAll().where("org_id", "=", orgId).where("team_id", "is", null).orderBy("created_at").orderBy("id").execute();
}

export async function deleteApiKey(db: Db, id: string): Promise<boolean> {
  const r = await db.deleteFrom("api_keys").where("id", "=", id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

// Workflow secrets

export async function insertWorkflowSecret(db: Db, row: Insertable<WorkflowSecretsTable>): Promise<void> {
  await db.insertInto("workflow_secrets").values(row).execute();
}

export function findWorkflowSecret(db: Db, id: string): Promise<WorkflowSecretRow | undefined> {
  return db.selectFrom("workflow_secrets").selectAll().where("id", "=", id).executeTakeFirst();
}

export function listWorkflowSecrets(db: Db, teamId: string): Promise<WorkflowSecretRow[]> {
  return db.selectFrom("workflow_secrets").selectAll().where("team_id", "=", teamId).orderBy("name").execute();
}

/** A new value for the secret under the same id (the webhooks that name it keep naming it). */
export async function updateWorkflowSecretValue(
  db: Db,
  id: string,
  value: Pick<WorkflowSecretsTable, "sealed_key_id" | "sealed_blob" | "last4" | "fingerprint">,
): Promise<void> {
  await db.updateTable("workflow_secrets").set(value).where("id", "=", id).execute();
}

export async function deleteWorkflowSecret(db: Db, id: string): Promise<boolean> {
  const r = await db.deleteFrom("workflow_secrets").where("id", "=", id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
