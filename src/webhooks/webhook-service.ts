import type { Logger } from "pino";
import type { BotCatalog } from "../bots/bot-catalog.js";
import type { Clock } from "../core/clock.js";
import { conflict, invalid, notFound } from "../core/errors.js";
import type { IdGenerator } from "../core/ids.js";
import type { Sealer } from "../core/sealer.js";
import type { ChangeFeed } from "../core/change-feed.js";
import type { CredentialStore } from "../credentials/credential-store.js";
import { deleteWebhookBucket } from "../store/webhook-calls.js";
import type { Db, Store } from "../store/store.js";
import type { TeamRow } from "../store/tenancy.js";
import * as w from "../store/webhooks.js";
import type { Access, Principal } from "../tenancy/access.js";
import type { AuditLog } from "../tenancy/audit.js";
import { isObject } from "./field-parsers.js";
import { parseProvider, parseWebhookFields, type WebhookFields } from "./webhook-fields.js";
import { columnsOf, configFromRow, secretColumns, secretsFromRow } from "./webhook-record.js";
import { checkWebhookRules, namedBotIds, sealsSecret, usesWildcardBots, webhookDefaults, type EditableConfig } from "./webhook-rules.js";
import { mintWebhookToken } from "./webhook-token.js";
import { rotatedSecretColumns } from "./rotated-secret-columns.js";
import { iso } from "../core/iso.js";
import { webhookViewOfRow } from "./webhook-views.js";

export interface WebhookServiceDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  sealer: Sealer;
  access: Access;
  audit: AuditLog;
  bots: BotCatalog;
  credentials: CredentialStore;
  log: Logger;
  /** Public base address; delivery URLs are built from it. */
  baseUrl: string;
  /** Told of every committed change, so cached copies drop. */
  changes: ChangeFeed;
}

/**
 * Fields forge provisioning writes on the configs it makes (the repo-bots body's, and what ties the
 * config to its repository): the webhook API's PATCH refuses them there. label_allowlist is not
 * among them: one patched onto a provisioned config is adopted by the next provision (spec rule 4).
 */
export const PROVISION_OWNED_FIELDS: ReadonlySet<string> = new Set([
  "bot_ids",
  "launch_vars",
  "overlap",
  "hold_labels",
  "project_allowlist",
  "forge_base_url",
  "sign_mode",
]);

/** A day: time enough for a person to paste a rotated token into a forge's secret field. */
export const ROTATION_OVERLAP_MAX_SECONDS = 86_400;

/** Webhook management: team members read, team admins create, update, delete and rotate. */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  async list(p: Principal, teamId: string) {
    await this.deps.access.team(p, teamId, "member");
    return (await w.listWebhooksOfTeam(this.deps.store.db, teamId)).map((r) => this.view(r));
  }

  async get(p: Principal, teamId: string, webhookId: string) {
    await this.deps.access.team(p, teamId, "member");
    return this.view(await this.find(this.deps.store.db, teamId, webhookId));
  }

  /**
   * Creates a config and mints its token; the plaintext is in the result and nowhere else.
   * `provisionedBy` is for forge provisioning only: the HTTP body cannot set it.
   */
  async create(p: Principal, teamId: string, body: unknown, options: { provisionedBy?: string } = {}) {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    if (!isObject(body)) throw invalid("body", "body must be a JSON object");
    if (body.provider === undefined) throw invalid("provider", "provider is required");
    const provider = parseProvider(body.provider);
    const fields = parseWebhookFields(body, provider, ["provider"]);
    const config: EditableConfig = { ...webhookDefaults(provider), ...fields };
    checkWebhookRules(provider, config);

    const id = this.deps.ids.next("whk");
    const minted = mintWebhookToken(this.deps.sealer, id, sealsSecret(provider, config.sign_mode));
    const now = this.deps.clock.now();
    const wildcard = usesWildcardBots(config);
    await this.deps.store.tx(async (tx) => {
      await this.checkReferences(tx, team, config, Object.keys(config));
      await w.insertWebhook(tx, {
        ...(columnsOf(config) as Required<ReturnType<typeof columnsOf>>),
        id,
        tenant_id: teamId,
        provider,
        provisioned_by: options.provisionedBy ?? null,
        token_last4: minted.last4,
        ...secretColumns(minted.secrets),
        created_at: now,
        updated_at: now,
      });
      await this.audit(tx, p, team, "webhook.create", id, { provider, name: config.name, ...(wildcard && { wildcard_bots: true }) });
    });
    if (wildcard) this.warnWildcard(p, teamId, id);
    return { config: this.view((await w.findWebhook(this.deps.store.db, id))!), token: minted.token };
  }

  /**
   * Changes the named fields; read-only and unknown fields are refused by name. On a provisioned
   * config the fields provisioning writes are refused (409) unless `provisioning` is the caller.
   */
  async update(p: Principal, teamId: string, webhookId: string, body: unknown, options: { provisioning?: boolean } = {}) {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    let wildcard = false;
    await this.deps.store.tx(async (tx) => {
      const row = await this.find(tx, teamId, webhookId);
      const current = configFromRow(row);
      const fields: WebhookFields = parseWebhookFields(body, current.provider);
      const names = Object.keys(fields);
      if (names.length === 0) throw invalid("body", "name at least one field to change");
      const owned = names.filter((n) => PROVISION_OWNED_FIELDS.has(n));
      if (row.provisioned_by !== null && !options.provisioning && owned.length > 0) {
        throw conflict(
          `this webhook is managed by forge provisioning; change ${owned.join(", ")} with POST /api/teams/${teamId}/forge/repo-bots (repo-bot ${row.provisioned_by})`,
        );
      }
      const next: EditableConfig = { ...pickEditable(current), ...fields };
      checkWebhookRules(current.provider, next);
      if (next.sign_mode !== "token" && secretsFromRow(row).sealed_secret === null) {
        throw conflict(`this webhook has no sealed secret; rotate its token, then switch sign_mode to ${next.sign_mode}`);
      }
      await this.checkReferences(tx, team, next, names);
      wildcard = usesWildcardBots(next) && (names.includes("bot_ids") || names.includes("wildcard_bots"));
      await w.updateWebhook(tx, webhookId, { ...columnsOf(fields), updated_at: this.deps.clock.now() });
      await this.audit(tx, p, team, "webhook.update", webhookId, { fields: names, ...(wildcard && { wildcard_bots: true }) });
    });
    this.deps.changes.publish({ kind: "webhook", id: webhookId });
    if (wildcard) this.warnWildcard(p, teamId, webhookId);
    return this.view((await w.findWebhook(this.deps.store.db, webhookId))!);
  }

  /** Removes the config; its delivery rows stay in the store for audit. */
  async remove(p: Principal, teamId: string, webhookId: string): Promise<void> {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    await this.deps.store.tx(async (tx) => {
      const row = await this.find(tx, teamId, webhookId);
      if (row.provisioned_by !== null) throw conflict("this webhook is managed by forge provisioning; remove it there");
      await w.deleteWebhook(tx, webhookId);
      await deleteWebhookBucket(tx, webhookId);
      await this.audit(tx, p, team, "webhook.delete", webhookId, { provider: row.provider, name: row.name });
    });
    this.deps.changes.publish({ kind: "webhook", id: webhookId });
  }

  /**
   * A new token, shown once; the HMAC secret is re-sealed. The old token stops verifying at once,
   * or after `overlapSeconds` (the config's `previous_token_valid_until`), which replaces any
   * earlier overlap.
   */
  async rotate(p: Principal, teamId: string, webhookId: string, overlapSeconds = 0) {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > ROTATION_OVERLAP_MAX_SECONDS) {
      throw invalid("overlap_seconds", `overlap_seconds must be a whole number from 0 to ${ROTATION_OVERLAP_MAX_SECONDS}`);
    }
    let token = "";
    await this.deps.store.tx(async (tx) => {
      const row = await this.find(tx, teamId, webhookId);
      if (row.provisioned_by !== null)
        throw conflict(`this webhook is managed by forge provisioning; rotate it with POST /api/teams/${teamId}/forge/repo-bots/${row.provisioned_by}/rotate`);
      const { provider, sign_mode } = configFromRow(row);
      const minted = mintWebhookToken(this.deps.sealer, webhookId, sealsSecret(provider, sign_mode));
      token = minted.token;
      const now = this.deps.clock.now();
      const columns = rotatedSecretColumns(secretsFromRow(row), minted.secrets, overlapSeconds * 1000, now);
      await w.updateWebhook(tx, webhookId, { token_last4: minted.last4, ...columns, updated_at: now });
      await this.audit(tx, p, team, "webhook.rotate", webhookId, {
        provider: row.provider,
        overlap_seconds: overlapSeconds,
        previous_token_valid_until: iso(columns.previous_valid_until),
      });
    });
    this.deps.changes.publish({ kind: "webhook", id: webhookId });
    return { config: this.view((await w.findWebhook(this.deps.store.db, webhookId))!), token };
  }

  private async find(db: Db, teamId: string, webhookId: string): Promise<w.WebhookRow> {
    const row = await w.findWebhookOfTeam(db, teamId, webhookId);
    if (!row) throw notFound("webhook");
    return row;
  }

  private view(row: w.WebhookRow) {
    return webhookViewOfRow(row, this.deps.baseUrl, this.deps.clock.now());
  }

  /** Bots, keys and secrets the config names must exist and be the team's to use; only changed fields are checked. */
  private async checkReferences(db: Db, team: TeamRow, c: EditableConfig, changed: string[]): Promise<void> {
    const touched = (...names: string[]) => names.some((n) => changed.includes(n));
    if (touched("bot_ids", "default_bot_id", "bot_rules")) {
      const known = new Set(await this.deps.bots.knownBotIds(team.org_id, db));
      for (const { id, field } of namedBotIds(c)) if (!known.has(id)) throw invalid(field, `unknown bot ${id}`);
    }
    if (touched("key_overrides")) await this.checkKeyOverrides(db, team, c.key_overrides);
    if (touched("forge_token") && c.forge_token !== null) await this.checkKey(db, team, c.forge_token, "forge", "forge_token");
    if (touched("secret_overrides")) await this.checkSecretOverrides(db, team, c.secret_overrides);
  }

  private async checkKeyOverrides(db: Db, team: TeamRow, overrides: EditableConfig["key_overrides"]): Promise<void> {
    for (const [provider, keyId] of Object.entries(overrides)) await this.checkKey(db, team, keyId, provider, `key_overrides.${provider}`);
  }

  private async checkSecretOverrides(db: Db, team: TeamRow, overrides: EditableConfig["secret_overrides"]): Promise<void> {
    for (const [name, secretId] of Object.entries(overrides)) {
      if (!(await this.deps.credentials.findTeamSecret(db, secretId, team.id))) throw invalid(`secret_overrides.${name}`, `no secret ${secretId} of this team`);
    }
  }

  private async checkKey(db: Db, team: TeamRow, keyId: string, provider: string, field: string): Promise<void> {
    const r = await this.deps.credentials.resolveKey(db, keyId, team);
    if (r.kind === "missing") throw invalid(field, `no key ${keyId} of this team or its org`);
    if (r.kind === "not_shared") throw invalid(field, `org key ${keyId} is not shared with this team`);
    if (r.key.provider !== provider) throw invalid(field, `key ${keyId} is a ${r.key.provider} key, not ${provider}`);
  }

  private audit(db: Db, p: Principal, team: TeamRow, action: string, webhookId: string, detail: Record<string, unknown>) {
    return this.deps.audit.record(db, {
      actorId: p.userId,
      action,
      targetType: "webhook",
      targetId: webhookId,
      orgId: team.org_id,
      teamId: team.id,
      detail,
    });
  }

  private warnWildcard(p: Principal, teamId: string, webhookId: string): void {
    this.deps.log.warn(
      { webhook_id: webhookId, team_id: teamId, actor_id: p.userId, wildcard_bots: true },
      'webhook bot_ids is ["*"]: a delivery may launch any known bot',
    );
  }
}

function pickEditable(c: ReturnType<typeof configFromRow>): EditableConfig {
  const { id: _id, tenant_id: _t, provider, token_last4: _l, provisioned_by: _p, created_at: _c, updated_at: _u, ...rest } = c;
  return { ...webhookDefaults(provider), ...rest };
}
