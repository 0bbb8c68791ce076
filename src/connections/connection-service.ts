import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import { conflict, invalid, notFound, ServiceError } from "../core/errors.js";
import type { IdGenerator } from "../core/ids.js";
import type { Sealer } from "../core/sealer.js";
import type { ForgeProviderName } from "../forges/shared/forge-client.js";
import type { ForgeClients } from "../forges/forge-clients.js";
import { parseForgeBaseUrl } from "../forges/shared/forge-target.js";
import * as f from "../store/forge-connections.js";
import type { Db, Store } from "../store/store.js";
import type { TeamRow } from "../store/tenancy.js";
import type { Access, Principal } from "../tenancy/access.js";
import type { AuditLog } from "../tenancy/audit.js";
import { parseProvider } from "../webhooks/webhook-fields.js";
import { connectionView } from "./connection-views.js";
import { type ConnectionCredential, credentialOf, type CredentialInput, identityOf, openCredential, sealedColumns } from "./connection-credential.js";
import { onForge } from "./forge-errors-as-service.js";
import type { InstallationTokens } from "./installation-tokens.js";
import type { ForgeHooks } from "../forges/shared/forge-hooks.js";
import type { AppCredential } from "../forges/shared/forge-connecting.js";
import { forgeApps, openForgeApp } from "../forges/open-app.js";
import { openForgeHooks, openForgeHttp } from "../forges/open-hooks.js";
import { forges } from "../forges/registry.js";
import type { SecurityTokenIssuer } from "../forges/shared/security-tokens.js";
import { parseWebhookBase } from "./webhook-base.js";

export interface ConnectionDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  sealer: Sealer;
  access: Access;
  audit: AuditLog;
  forgeClients: ForgeClients;
  installationTokens: InstallationTokens;
  log: Logger;
}

export interface ConnectionInput extends CredentialInput {
  provider: string;
  base_url?: string | null;
  webhook_base_url?: string;
}

export interface ConnectionPatch {
  token?: string;
  webhook_base_url?: string;
}

/** A connection opened for forge calls, in this process only. */
export interface OpenConnection {
  row: f.ForgeConnectionRow;
  provider: ForgeProviderName;
  /** The forge's hook calls with the connection's credential; an App's installation token is minted only here, when due. */
  hooks(): Promise<ForgeHooks>;
  /** The org's security-read token calls; a 422 where the forge or the credential cannot mint one. */
  securityTokens(): SecurityTokenIssuer;
}

/** A team's forge connections: team admins connect and change them, members read; the credential never leaves. */
export class ConnectionService {
  constructor(private readonly deps: ConnectionDeps) {}

  async create(p: Principal, teamId: string, input: ConnectionInput) {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    const provider = forgeProvider(input.provider);
    const baseUrl = checkBaseUrl(provider, input.base_url ?? null);
    const pin = input.webhook_base_url === undefined ? null : this.webhookBase(input.webhook_base_url, teamId);
    const credential = credentialOf(provider, input);
    const id = this.deps.ids.next("fcn");
    const owner = await this.tenantForgeCall(id, teamId, provider, async () => {
      const who = await identityOf(this.deps.forgeClients, provider, baseUrl, credential);
      // An App must also be installed where it says: its installation mints a token, or the connection is refused.
      if (credential.kind === "app")
        await onForge("the installation", () => openForgeApp(this.deps.forgeClients.network, provider, baseUrl, credential.app).installationToken());
      return who;
    });
    const now = this.deps.clock.now();
    await this.deps.store.tx(async (tx) => {
      await f.insertForgeConnection(tx, {
        id,
        team_id: teamId,
        provider,
        base_url: baseUrl,
        ...sealedColumns(this.deps.sealer, id, credential),
        bot_login: owner.login,
        bot_user_id: owner.id,
        webhook_base_url: pin,
        created_by: p.userId,
        created_at: now,
        updated_at: now,
      });
      await this.audit(tx, p, team, "forge_connection.create", id, { provider, bot_login: owner.login });
    });
    return connectionView((await f.findForgeConnectionOfTeam(this.deps.store.db, teamId, id))!);
  }

  async list(p: Principal, teamId: string) {
    await this.deps.access.team(p, teamId, "member");
    return (await f.listForgeConnectionsOfTeam(this.deps.store.db, teamId)).map(connectionView);
  }

  async get(p: Principal, teamId: string, id: string) {
    await this.deps.access.team(p, teamId, "member");
    return connectionView(await this.find(this.deps.store.db, teamId, id));
  }

  /** A new credential is verified first; the webhook base pin takes effect at each repository's next provision. */
  async update(p: Principal, teamId: string, id: string, patch: ConnectionPatch) {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    if (patch.token === undefined && patch.webhook_base_url === undefined) throw invalid("body", "name token or webhook_base_url to change");
    const row = await this.find(this.deps.store.db, teamId, id);
    const pin = patch.webhook_base_url === undefined ? undefined : this.webhookBase(patch.webhook_base_url, teamId);
    if (patch.token !== undefined && row.auth === "app") throw invalid("token", "this connection is a GitHub App; connect it again to change its key");
    const credential = patch.token === undefined ? undefined : await this.credentialColumns(row, patch.token);
    await this.deps.store.tx(async (tx) => {
      await f.updateForgeConnection(tx, id, { ...(pin !== undefined && { webhook_base_url: pin }), ...credential, updated_at: this.deps.clock.now() });
      const fields = [...(pin !== undefined ? ["webhook_base_url"] : []), ...(credential ? ["token"] : [])];
      await this.audit(tx, p, team, "forge_connection.update", id, { fields });
    });
    return connectionView(await this.find(this.deps.store.db, teamId, id));
  }

  /** Refused while repositories are provisioned through it: their hooks would be left calling in. */
  async remove(p: Principal, teamId: string, id: string): Promise<void> {
    const { team } = await this.deps.access.team(p, teamId, "admin");
    await this.deps.store.tx(async (tx) => {
      const row = await this.find(tx, teamId, id);
      if ((await f.listRepoBotsOfConnection(tx, id)).length > 0) throw conflict("deprovision this connection's repositories first");
      await f.deleteForgeConnection(tx, id);
      await this.audit(tx, p, team, "forge_connection.delete", id, { provider: row.provider });
    });
  }

  /** The connection (same team only), its credential opened for the calls made through it. */
  async open(db: Db, teamId: string, id: string): Promise<OpenConnection> {
    const row = await this.find(db, teamId, id);
    const credential = openCredential(this.deps.sealer, row);
    const provider = row.provider as ForgeProviderName;
    const hooksWith = (token: string) =>
      openForgeHooks(this.deps.forgeClients.network, provider, { forgeBaseUrl: row.base_url, token }, { installation: credential.kind === "app" });
    const securityTokens = () => this.securityTokens(row, provider, credential);
    if (credential.kind === "token") return { row, provider, hooks: async () => hooksWith(credential.token), securityTokens };
    return { row, provider, hooks: async () => hooksWith(await this.installationToken(row, provider, credential.app)), securityTokens };
  }

  /** Minted through the connection's App, or with its token where the forge's token can mint them (the forge says which). */
  private securityTokens(row: f.ForgeConnectionRow, provider: ForgeProviderName, credential: ConnectionCredential): SecurityTokenIssuer {
    const network = this.deps.forgeClients.network;
    if (credential.kind === "app") return openForgeApp(network, provider, row.base_url, credential.app).securityTokens();
    const withToken = forges[provider].connecting.securityTokens;
    if ("refused" in withToken)
      throw new ServiceError("unprocessable", `${withToken.refused}: security_read_enabled is not available here`, "security_read_enabled");
    return withToken(openForgeHttp(network, provider, { forgeBaseUrl: row.base_url, token: credential.token }), () => this.deps.clock.now());
  }

  /**
   * Where a provisioned webhook's lanes call the forge when the webhook names no forge_token: its
   * connection's API root and credential (an App's installation token). Undefined for a webhook
   * not provisioned through a connection of the team.
   */
  async laneTarget(teamId: string, repoBotId: string): Promise<{ forgeBaseUrl: string | null; token: string; viaApp: boolean } | undefined> {
    const db = this.deps.store.db;
    const bot = await f.findRepoBotOfTeam(db, teamId, repoBotId);
    const row = bot && (await f.findForgeConnectionOfTeam(db, teamId, bot.connection_id));
    if (!row) return undefined;
    const credential = openCredential(this.deps.sealer, row);
    const token = credential.kind === "token" ? credential.token : await this.installationToken(row, row.provider as ForgeProviderName, credential.app);
    return { forgeBaseUrl: row.base_url, token, viaApp: credential.kind === "app" };
  }

  private installationToken(row: f.ForgeConnectionRow, provider: ForgeProviderName, app: AppCredential): Promise<string> {
    const refreshBeforeMs = forgeApps(provider)?.refreshBeforeMs ?? 0;
    return this.deps.installationTokens.get(`${row.id}:${row.sealed_blob.slice(0, 16)}`, refreshBeforeMs, () =>
      onForge("an installation token", () => openForgeApp(this.deps.forgeClients.network, provider, row.base_url, app).installationToken()),
    );
  }

  /** Validates a pin (422 when refused); plain http on a public host is allowed, and logged. */
  private webhookBase(value: string, teamId: string): string | null {
    const parsed = parseWebhookBase(value);
    if (!parsed.ok) throw new ServiceError("unprocessable", parsed.reason, "webhook_base_url");
    if (parsed.plainHttp)
      this.deps.log.warn(
        { team_id: teamId, webhook_base_url: parsed.base },
        "forge webhook base is plain http: deliveries and their secrets travel unencrypted",
      );
    return parsed.base;
  }

  private async credentialColumns(row: f.ForgeConnectionRow, token: string) {
    const credential = credentialOf(row.provider as ForgeProviderName, { token });
    const owner = await this.tenantForgeCall(row.id, row.team_id, row.provider, () =>
      identityOf(this.deps.forgeClients, row.provider as ForgeProviderName, row.base_url, credential),
    );
    return { ...sealedColumns(this.deps.sealer, row.id, credential), bot_login: owner.login, bot_user_id: owner.id };
  }

  /**
   * A forge call a team admin caused: its refusal is the tenant's answer (422/502) and one warn
   * line naming the connection, never an error line (the libraries' own lines go to debug).
   */
  private async tenantForgeCall<T>(connectionId: string, teamId: string, provider: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof ServiceError)
        this.deps.log.warn({ connection_id: connectionId, team_id: teamId, provider, error: err.code }, "forge connection refused by the forge");
      throw err;
    }
  }

  private async find(db: Db, teamId: string, id: string) {
    const row = await f.findForgeConnectionOfTeam(db, teamId, id);
    if (!row) throw notFound("forge connection");
    return row;
  }

  private audit(db: Db, p: Principal, team: TeamRow, action: string, id: string, detail: Record<string, unknown>) {
    return this.deps.audit.record(db, { actorId: p.userId, action, targetType: "forge_connection", targetId: id, orgId: team.org_id, teamId: team.id, detail });
  }
}

function forgeProvider(value: string): ForgeProviderName {
  const provider = parseProvider(value);
  if (provider === "generic") throw invalid("provider", "generic has no forge to connect");
  return provider;
}

/** Stored as given (the forge modules derive the API root); a forge without a public instance (Forgejo) needs one. */
function checkBaseUrl(provider: ForgeProviderName, value: string | null): string | null {
  const parsed = parseForgeBaseUrl(value);
  if (parsed === "bad") throw invalid("base_url", "base_url must be an http(s) URL without credentials, query or fragment");
  if (parsed === null && forges[provider].api.apiRoot(null) === null)
    throw invalid("base_url", `${provider} (${forges[provider].name}) has no public instance: name yours in base_url`);
  return parsed === null ? null : parsed.href.replace(/\/+$/, "");
}
