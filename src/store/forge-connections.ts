import type { Insertable, Selectable, Updateable } from "kysely";
import type { ForgeConnectionsTable, RepoBotsTable } from "./schema/forge.js";
import type { WebhookRow } from "./webhooks.js";
import type { Db } from "./db.js";

export type ForgeConnectionRow = Selectable<ForgeConnectionsTable>;
export type RepoBotRow = Selectable<RepoBotsTable>;

// Connections

export async function insertForgeConnection(db: Db, row: Insertable<ForgeConnectionsTable>): Promise<void> {
  await db.insertInto("forge_connections").values(row).execute();
}

/** The connection when it belongs to the team: an id of another team reads as missing. */
export function findForgeConnectionOfTeam(db: Db, teamId: string, id: string): Promise<ForgeConnectionRow | undefined> {
  return db.selectFrom("forge_connections").selectAll().where("id", "=", id).where("team_id", "=", teamId).executeTakeFirst();
}

export function listForgeConnectionsOfTeam(db: Db, teamId: string): Promise<ForgeConnectionRow[]> {
  return db.selectFrom("forge_connections").selectAll().where("team_id", "=", teamId).orderBy("created_at").orderBy("id").execute();
}

export async function updateForgeConnection(db: Db, id: string, patch: Updateable<Omit<ForgeConnectionsTable, "id" | "team_id">>): Promise<void> {
  await db.updateTable("forge_connections").set(patch).where("id", "=", id).execute();
}

export async function deleteForgeConnection(db: Db, id: string): Promise<void> {
  await db.deleteFrom("forge_connections").where("id", "=", id).execute();
}

// Provisioned repositories

/** Inserts the row unless one for (connection, repo) exists; either way returns the stored one. */
export async function ensureRepoBot(db: Db, row: Insertable<RepoBotsTable>): Promise<RepoBotRow> {
  await db
    .insertInto("repo_bots")
    .values(row)
    .onConflict((oc) => oc.columns(["connection_id", "repo"]).doNothing())
    .execute();
  return db.selectFrom("repo_bots").selectAll().where("connection_id", "=", row.connection_id).where("repo", "=", row.repo).executeTakeFirstOrThrow();
}

export function findRepoBot(db: Db, id: string): Promise<RepoBotRow | undefined> {
  return db.selectFrom("repo_bots").selectAll().where("id", "=", id).executeTakeFirst();
}

export function findRepoBotOfTeam(db: Db, teamId: string, id: string): Promise<RepoBotRow | undefined> {
  return db.selectFrom("repo_bots").selectAll().where("id", "=", id).where("team_id", "=", teamId).executeTakeFirst();
}

export function listRepoBotsOfConnection(db: Db, connectionId: string): Promise<RepoBotRow[]> {
  return db.selectFrom("repo_bots").selectAll().where("connection_id", "=", connectionId).orderBy("repo").execute();
}

export function listRepoBotsOfTeam(db: Db, teamId: string): Promise<RepoBotRow[]> {
  return db.selectFrom("repo_bots").selectAll().where("team_id", "=", teamId).orderBy("repo").orderBy("id").execute();
}

export async function updateRepoBot(db: Db, id: string, patch: Updateable<Omit<RepoBotsTable, "id" | "connection_id" | "team_id" | "repo">>): Promise<void> {
  await db.updateTable("repo_bots").set(patch).where("id", "=", id).execute();
}

/** Takes the repository's write lease unless another provision holds it; false when one does. */
export async function claimRepoBotWrite(db: Db, id: string, now: number, until: number): Promise<boolean> {
  const r = await db.updateTable("repo_bots").set({ writing_until: until }).where("id", "=", id).where("writing_until", "<=", now).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function releaseRepoBotWrite(db: Db, id: string): Promise<void> {
  await db.updateTable("repo_bots").set({ writing_until: 0 }).where("id", "=", id).execute();
}

export async function deleteRepoBot(db: Db, id: string): Promise<void> {
  await db.deleteFrom("repo_bots").where("id", "=", id).execute();
}

/** The webhook config a provisioning made (its `provisioned_by` marker is the repo bot's id). */
export function findWebhookProvisionedBy(db: Db, marker: string): Promise<WebhookRow | undefined> {
  return db.selectFrom("webhooks").selectAll().where("provisioned_by", "=", marker).orderBy("created_at").executeTakeFirst();
}

/** Repositories whose security-read token is due for its successor, the most overdue first. */
export function listRepoBotsDueForSecurityRenewal(db: Db, now: number, limit: number): Promise<RepoBotRow[]> {
  return db.selectFrom("repo_bots").selectAll().where("security_renew_at", "<=", now).orderBy("security_renew_at").limit(limit).execute();
}
