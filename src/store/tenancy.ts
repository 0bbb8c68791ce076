import type { Insertable, Selectable, Updateable } from "kysely";
import type { Db } from "./db.js";
import type { AccessTokensTable, AuditLogTable, OrgsTable, TeamsTable, UsersTable } from "./schema/tenancy.js";

export type OrgRow = Selectable<OrgsTable>;
export type TeamRow = Selectable<TeamsTable>;
export type UserRow = Selectable<UsersTable>;
export type AccessTokenRow = Selectable<AccessTokensTable>;
export type Role = "member" | "admin";

// Orgs

export async function insertOrg(db: Db, row: Insertable<OrgsTable>): Promise<void> {
  await db.insertInto("orgs").values(row).execute();
}

export function findOrg(db: Db, id: string): Promise<OrgRow | undefined> {
  return db.selectFrom("orgs").selectAll().where("id", "=", id).executeTakeFirst();
}

export function listOrgs(db: Db): Promise<OrgRow[]> {
  return db.selectFrom("orgs").selectAll().orderBy("created_at").orderBy("id").execute();
}

export async function updateOrg(db: Db, id: string, patch: Updateable<OrgsTable>): Promise<void> {
  await db.updateTable("orgs").set(patch).where("id", "=", id).execute();
}

// Teams

export async function insertTeam(db: Db, row: Insertable<TeamsTable>): Promise<void> {
  await db.insertInto("teams").values(row).execute();
}

export function findTeam(db: Db, id: string): Promise<TeamRow | undefined> {
  return db.selectFrom("teams").selectAll().where("id", "=", id).executeTakeFirst();
}

export function listTeamsOfOrg(db: Db, orgId: string): Promise<TeamRow[]> {
  return db.selectFrom("teams").selectAll().where("org_id", "=", orgId).orderBy("created_at").orderBy("id").execute();
}

/** Teams of an org that the user is a member of. */
export function listTeamsOfOrgForUser(db: Db, orgId: string, userId: string): Promise<TeamRow[]> {
  return db
    .selectFrom("teams")
    .innerJoin("team_members", "team_members.team_id", "teams.id")
    .selectAll("teams")
    .where("teams.org_id", "=", orgId)
    .where("team_members.user_id", "=", userId)
    .orderBy("teams.created_at")
    .orderBy("teams.id")
    .execute();
}

export async function updateTeam(db: Db, id: string, patch: Updateable<TeamsTable>): Promise<void> {
  await db.updateTable("teams").set(patch).where("id", "=", id).execute();
}

// Users and memberships

export async function insertUser(db: Db, row: Insertable<UsersTable>): Promise<void> {
  await db.insertInto("users").values(row).execute();
}

export function findUser(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
}

export function findUserByLogin(db: Db, login: string): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("login", "=", login).executeTakeFirst();
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db
    .selectFrom("users")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function putOrgMember(db: Db, orgId: string, userId: string, role: Role, now: number): Promise<void> {
  await db
    .insertInto("org_members")
    .values({ org_id: orgId, user_id: userId, role, created_at: now })
    .onConflict((oc) => oc.columns(["org_id", "user_id"]).doUpdateSet({ role }))
    .execute();
}

/** The user leaves the org: its membership and every membership of the org's teams go together. */
export async function deleteOrgMember(db: Db, orgId: string, userId: string): Promise<boolean> {
  const teams = await db
    .deleteFrom("team_members")
    .where("user_id", "=", userId)
    .where("team_id", "in", db.selectFrom("teams").select("id").where("org_id", "=", orgId))
    .executeTakeFirst();
  const org = await db.deleteFrom("org_members").where("org_id", "=", orgId).where("user_id", "=", userId).executeTakeFirst();
  return Number(org.numDeletedRows) + Number(teams.numDeletedRows) > 0;
}

export async function putTeamMember(db: Db, teamId: string, userId: string, role: Role, now: number): Promise<void> {
  await db
    .insertInto("team_members")
    .values({ team_id: teamId, user_id: userId, role, created_at: now })
    .onConflict((oc) => oc.columns(["team_id", "user_id"]).doUpdateSet({ role }))
    .execute();
}

export async function deleteTeamMember(db: Db, teamId: string, userId: string): Promise<boolean> {
  const r = await db.deleteFrom("team_members").where("team_id", "=", teamId).where("user_id", "=", userId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function findOrgRole(db: Db, orgId: string, userId: string): Promise<Role | undefined> {
  const row = await db.selectFrom("org_members").select("role").where("org_id", "=", orgId).where("user_id", "=", userId).executeTakeFirst();
  return row?.role;
}

/** The user's role on the team, only while they are a member of the team's org too. */
export async function findTeamRole(db: Db, teamId: string, userId: string): Promise<Role | undefined> {
  const row = await db
    .selectFrom("team_members")
    .innerJoin("teams", "teams.id", "team_members.team_id")
    .innerJoin("org_members", (j) => j.onRef("org_members.org_id", "=", "teams.org_id").onRef("org_members.user_id", "=", "team_members.user_id"))
    .select("team_members.role")
    .where("team_members.team_id", "=", teamId)
    .where("team_members.user_id", "=", userId)
    .executeTakeFirst();
  return row?.role;
}

export interface Membership {
  id: string;
  name: string;
  role: Role;
}

export function listOrgMemberships(db: Db, userId: string): Promise<Membership[]> {
  return db
    .selectFrom("org_members")
    .innerJoin("orgs", "orgs.id", "org_members.org_id")
    .select(["orgs.id", "orgs.name", "org_members.role"])
    .where("org_members.user_id", "=", userId)
    .orderBy("orgs.id")
    .execute();
}

export function listTeamMemberships(db: Db, userId: string): Promise<(Membership & { org_id: string })[]> {
  return db
    .selectFrom("team_members")
    .innerJoin("teams", "teams.id", "team_members.team_id")
    .select(["teams.id", "teams.name", "teams.org_id", "team_members.role"])
    .where("team_members.user_id", "=", userId)
    .orderBy("teams.id")
    .execute();
}

export async function countOrgMembers(db: Db, orgId: string): Promise<number> {
  const row = await db
    .selectFrom("org_members")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("org_id", "=", orgId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Deactivates (a time) or reactivates (null) a user; false for an unknown id. */
export async function setUserDeactivated(db: Db, userId: string, at: number | null): Promise<boolean> {
  const r = await db.updateTable("users").set({ deactivated_at: at }).where("id", "=", userId).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

// Personal access tokens

export async function insertAccessToken(db: Db, row: Insertable<AccessTokensTable>): Promise<void> {
  await db.insertInto("access_tokens").values(row).execute();
}

export function listAccessTokens(db: Db, userId: string): Promise<AccessTokenRow[]> {
  return db.selectFrom("access_tokens").selectAll().where("user_id", "=", userId).where("revoked_at", "is", null).orderBy("created_at").orderBy("id").execute();
}

/** Revokes a user's tokens of one source, but the one to keep (SERVICE_ADMIN_TOKEN replaced). */
export async function revokeAccessTokensBySource(db: Db, source: string, keepId: string, now: number): Promise<void> {
  await db
    .updateTable("access_tokens")
    .set({ revoked_at: now })
    .where("source", "=", source)
    .where("id", "!=", keepId)
    .where("revoked_at", "is", null)
    .execute();
}

export async function reinstateAccessToken(db: Db, id: string): Promise<void> {
  await db.updateTable("access_tokens").set({ revoked_at: null }).where("id", "=", id).execute();
}

export async function insertAudit(db: Db, row: Insertable<AuditLogTable>): Promise<void> {
  await db.insertInto("audit_log").values(row).execute();
}

export function listAudit(db: Db, targetType: string, targetId: string) {
  return db.selectFrom("audit_log").selectAll().where("target_type", "=", targetType).where("target_id", "=", targetId).orderBy("at").orderBy("id").execute();
}
