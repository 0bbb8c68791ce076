import type { Db } from "./store.js";
import { listWebhookRefsOfOrg, type WebhookRefs } from "./webhooks.js";

/** Which ids of other records (bots, keys, secrets) a stored config names. */
export function referencedIds(r: WebhookRefs): { bots: string[]; keys: string[]; secrets: string[] } {
  const rules = r.bot_rules === null ? [] : (JSON.parse(r.bot_rules) as { bot_id: string }[]);
  const bots = [...(JSON.parse(r.bot_ids) as string[]), ...(r.default_bot_id ? [r.default_bot_id] : []), ...rules.map((x) => x.bot_id)];
  const keys = [...Object.values(JSON.parse(r.key_overrides) as Record<string, string>), ...(r.forge_token ? [r.forge_token] : [])];
  const secrets = Object.values(JSON.parse(r.secret_overrides) as Record<string, string>);
  return { bots: bots.filter((b) => b !== "*"), keys, secrets };
}

/** Ids of the org's webhooks that name `id` as a bot, key or secret: a removal would break them. */
export async function webhooksReferencing(db: Db, orgId: string, kind: "bots" | "keys" | "secrets", id: string): Promise<string[]> {
  const refs = await listWebhookRefsOfOrg(db, orgId);
  return refs.filter((r) => referencedIds(r)[kind].includes(id)).map((r) => r.id);
}
