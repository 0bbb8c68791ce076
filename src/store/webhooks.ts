import type { Insertable, Selectable, Updateable } from "kysely";
import type { WebhooksTable } from "./schema/webhooks.js";
import type { Db } from "./db.js";

export type WebhookRow = Selectable<WebhooksTable>;
export type WebhookRowPatch = Updateable<Omit<WebhooksTable, "id" | "tenant_id" | "provider" | "created_at">>;

export async function insertWebhook(db: Db, row: Insertable<WebhooksTable>): Promise<void> {
  await db.insertInto("webhooks").values(row).execute();
}

export function findWebhook(db: Db, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom("webhooks").selectAll().where("id", "=", id).executeTakeFirst();
}

/** The webhook when it belongs to the team: an id of another team reads as missing. */
export function findWebhookOfTeam(db: Db, teamId: string, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom("webhooks").selectAll().where("id", "=", id).where("tenant_id", "=", teamId).executeTakeFirst();
}

export function listWebhooksOfTeam(db: Db, teamId: string): Promise<WebhookRow[]> {
  return db.selectFrom("webhooks").selectAll().where("tenant_id", "=", teamId).orderBy("created_at").orderBy("id").execute();
}

export async function updateWebhook(db: Db, id: string, patch: WebhookRowPatch): Promise<void> {
  await db.updateTable("webhooks").set(patch).where("id", "=", id).execute();
}

export async function deleteWebhook(db: Db, id: string): Promise<boolean> {
  // Its pull requests' runs of gate fixes go with it (deliveries stay, for audit).
  await db.deleteFrom("gate_fix_streaks").where("webhook_id", "=", id).execute();
  const r = await db.deleteFrom("webhooks").where("id", "=", id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export interface WebhookRefs {
  id: string;
  tenant_id: string;
  bot_ids: string;
  default_bot_id: string | null;
  bot_rules: string | null;
  key_overrides: string;
  secret_overrides: string;
  forge_token: string | null;
}

/** The columns naming other records (bots, keys, secrets) of every webhook of an org's teams. */
export function listWebhookRefsOfOrg(db: Db, orgId: string): Promise<WebhookRefs[]> {
  return db
    .selectFrom("webhooks")
    .innerJoin("teams", "teams.id", "webhooks.tenant_id")
    .select([
      "webhooks.id",
      "webhooks.tenant_id",
      "webhooks.bot_ids",
      "webhooks.default_bot_id",
      "webhooks.bot_rules",
      "webhooks.key_overrides",
      "webhooks.secret_overrides",
      "webhooks.forge_token",
    ])
    .where("teams.org_id", "=", orgId)
    .orderBy("webhooks.id")
    .execute();
}

/**
 * Forgets the previous secret of every webhook whose overlap ended at or before `now` (its
 * window is `now < previous_valid_until`), at most `limit` of them; the number cleared.
 */
export async function clearExpiredPreviousSecrets(db: Db, now: number, limit: number): Promise<number> {
  const due = db.selectFrom("webhooks").select("id").where("previous_valid_until", "<=", now).limit(limit);
  const r = await db
    .updateTable("webhooks")
    .set({ previous_token_hash: null, previous_sealed_key_id: null, previous_sealed_blob: null, previous_valid_until: null })
    .where("id", "in", due)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
