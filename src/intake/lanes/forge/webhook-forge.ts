import type { CredentialStore } from "../../../credentials/credential-store.js";
import type { ForgeClient } from "../../../forges/shared/forge-client.js";
import type { ForgeClients } from "../../../forges/forge-clients.js";
import type { WebhookConfig } from "../../../webhooks/webhook-config.js";
import type { ForgeProviderName } from "../../../forges/shared/forge-client.js";

/** `viaApp`: the client holds a GitHub App's installation token (its runs are shown as check runs). */
export type WebhookForge = { ok: true; client: ForgeClient; viaApp: boolean } | { ok: false; reason: string };

/** A provisioned webhook's connection, where its lanes call the forge without a forge_token. */
export interface ConnectionTargets {
  laneTarget(teamId: string, repoBotId: string): Promise<{ forgeBaseUrl: string | null; token: string; viaApp?: boolean } | undefined>;
}

/**
 * A webhook's forge client for one lane: its forge_base_url (else the public forge) and the
 * token of its forge_token binding, a stored key of provider `forge` opened from its seal; a
 * provisioned webhook without one uses its connection's API root and credential.
 */
export class WebhookForges {
  constructor(private readonly deps: { clients: ForgeClients; credentials: Pick<CredentialStore, "openKey">; connections?: ConnectionTargets }) {}

  async open(config: WebhookConfig, provider: ForgeProviderName): Promise<WebhookForge> {
    if (config.forge_token === null) return this.viaConnection(config, provider);
    const key = await this.deps.credentials.openKey(config.forge_token, config.tenant_id);
    if (key === undefined || key.provider !== "forge") return { ok: false, reason: "the webhook's forge_token names no forge key this team may use" };
    const opened = this.deps.clients.open(provider, { forgeBaseUrl: config.forge_base_url, token: key.secret });
    return opened.ok ? { ...opened, viaApp: false } : { ok: false, reason: opened.message };
  }

  private async viaConnection(config: WebhookConfig, provider: ForgeProviderName): Promise<WebhookForge> {
    const { connections, clients } = this.deps;
    if (!config.provisioned_by || !connections) return { ok: false, reason: "the webhook has no forge_token binding" };
    let target: Awaited<ReturnType<ConnectionTargets["laneTarget"]>>;
    try {
      target = await connections.laneTarget(config.tenant_id, config.provisioned_by);
    } catch (err) {
      return { ok: false, reason: `the webhook's forge connection could not be used: ${(err as Error).message}` };
    }
    if (!target) return { ok: false, reason: "the webhook has no forge_token binding and its forge connection is gone" };
    const opened = clients.open(provider, { forgeBaseUrl: target.forgeBaseUrl, token: target.token });
    return opened.ok ? { ...opened, viaApp: target.viaApp === true } : { ok: false, reason: opened.message };
  }
}
