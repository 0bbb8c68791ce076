import type { Insertable, Selectable } from "kysely";
import type { OrgBotsTable } from "./schema/bots.js";
import type { Db } from "./db.js";

export type OrgBotRow = Selectable<OrgBotsTable>;

export async function insertOrgBot(db: Db, row: Insertable<OrgBotsTable>): Promise<void> {
  await db.insertInto("org_bots").values(row).execute();
}

export function listOrgBots(db: Db, orgId: string): Promise<OrgBotRow[]> {
  return db.selectFrom("org_bots").selectAll().where("org_id", "=", orgId).orderBy("id").execute();
}

export function findOrgBot(db: Db, orgId: string, id: string): Promise<OrgBotRow | undefined> {
  return db.selectFrom("org_bots").selectAll().where("org_id", "=", orgId).where("id", "=", id).executeTakeFirst();
}

export async function deleteOrgBot(db: Db, orgId: string, id: string): Promise<boolean> {
  const r = await db.deleteFrom("org_bots").where("org_id", "=", orgId).where("id", "=", id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
