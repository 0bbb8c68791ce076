import { checkName } from "../core/names.js";
import type { Clock } from "../core/clock.js";
import { conflict, invalid, notFound } from "../core/errors.js";
import { deleteOrgBot, findOrgBot, insertOrgBot, listOrgBots, type OrgBotRow } from "../store/bots.js";
import { isUniqueViolation } from "../store/errors.js";
import type { Db, Store } from "../store/store.js";
import type { Access, Principal } from "../tenancy/access.js";
import type { AuditLog } from "../tenancy/audit.js";
import { webhooksReferencing } from "../store/webhook-refs.js";
import { BOT_ID_RE, BUILTIN_BOTS, isBuiltinBot } from "./bot-id.js";
import { iso } from "../core/iso.js";

export interface BotCatalogDeps {
  store: Store;
  clock: Clock;
  access: Access;
  audit: AuditLog;
}

export interface BotInput {
  id: string;
  name: string;
  description?: string;
}

const orgBotView = (b: OrgBotRow) => ({ id: b.id, name: b.name, description: b.description, builtin: false, created_at: iso(b.created_at) });
const builtinView = (b: (typeof BUILTIN_BOTS)[number]) => ({ ...b, builtin: true, created_at: null });

/**
 * The bots a webhook may name: the built-ins every org has, plus the ones an org registers.
 * The intake asks {@link isKnownBot}; webhook management refuses unknown ids.
 */
export class BotCatalog {
  constructor(private readonly deps: BotCatalogDeps) {}

  async knownBotIds(orgId: string, db: Db = this.deps.store.db): Promise<string[]> {
    return [...BUILTIN_BOTS.map((b) => b.id), ...(await listOrgBots(db, orgId)).map((b) => b.id)];
  }

  async isKnownBot(orgId: string, id: string, db: Db = this.deps.store.db): Promise<boolean> {
    return isBuiltinBot(id) || (await findOrgBot(db, orgId, id)) !== undefined;
  }

  /** Built-ins first, then the org's own bots by id. */
  async list(p: Principal, orgId: string) {
    await this.deps.access.org(p, orgId, "member");
    return [...BUILTIN_BOTS.map(builtinView), ...(await listOrgBots(this.deps.store.db, orgId)).map(orgBotView)];
  }

  async register(p: Principal, orgId: string, input: BotInput) {
    await this.deps.access.org(p, orgId, "admin");
    if (!BOT_ID_RE.test(input.id)) throw invalid("id", "id must match [a-z0-9][a-z0-9-]{0,62}");
    if (isBuiltinBot(input.id)) throw conflict(`${input.id} is a built-in bot`);
    const row = {
      org_id: orgId,
      id: input.id,
      name: checkName(input.name),
      description: (input.description ?? "").trim(),
      created_by: p.userId,
      created_at: this.deps.clock.now(),
    };
    try {
      await this.deps.store.tx(async (tx) => {
        await insertOrgBot(tx, row);
        await this.deps.audit.record(tx, {
          actorId: p.userId,
          action: "bot.create",
          targetType: "bot",
          targetId: input.id,
          orgId,
          detail: { name: row.name },
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`bot ${input.id} is already registered`);
      throw err;
    }
    return orgBotView(row);
  }

  /** A bot still named by a webhook of the org cannot be removed: the webhook would stop routing. */
  async remove(p: Principal, orgId: string, botId: string): Promise<void> {
    await this.deps.access.org(p, orgId, "admin");
    if (isBuiltinBot(botId)) throw conflict(`${botId} is a built-in bot and cannot be removed`);
    await this.deps.store.tx(async (tx) => {
      if (!(await findOrgBot(tx, orgId, botId))) throw notFound("bot");
      const users = await webhooksReferencing(tx, orgId, "bots", botId);
      if (users.length > 0) throw conflict(`bot ${botId} is used by webhook ${users.join(", ")}`);
      await deleteOrgBot(tx, orgId, botId);
      await this.deps.audit.record(tx, { actorId: p.userId, action: "bot.delete", targetType: "bot", targetId: botId, orgId });
    });
  }
}
