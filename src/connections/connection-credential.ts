import { invalid } from "../core/errors.js";
import type { Sealer } from "../core/sealer.js";
import { last4 } from "../core/secrets.js";
import type { ForgeProviderName } from "../forges/shared/forge-client.js";
import type { AppCredential, ForgeCredential } from "../forges/shared/forge-connecting.js";
import type { ForgeClients } from "../forges/forge-clients.js";
import { hasApps, openForgeApp } from "../forges/open-app.js";
import { PROVIDERS } from "../webhooks/provider-names.js";
import type { ForgeConnectionRow } from "../store/forge-connections.js";
import { forgeServiceError, onForge } from "./forge-errors-as-service.js";

/** A connection's credential: a token, or an App installation where the forge has Apps (GitHub). */
export type ConnectionCredential = ForgeCredential;

/** The providers whose connections may be an App's installation, for a refusal's message. */
const WITH_APPS = PROVIDERS.filter((p): p is ForgeProviderName => p !== "generic" && hasApps(p)).join(", ");

export interface CredentialInput {
  token?: string;
  app_id?: number;
  private_key?: string;
  installation_id?: number;
}

/** Exactly one credential: a token, or all three App fields on a forge with Apps (400 otherwise). */
export function credentialOf(provider: ForgeProviderName, input: CredentialInput): ConnectionCredential {
  const appFields = [input.app_id, input.private_key, input.installation_id].filter((v) => v !== undefined).length;
  if (input.token !== undefined && appFields > 0) throw invalid("token", "give a token or a GitHub App (app_id, private_key, installation_id), not both");
  if (input.token !== undefined) {
    if (input.token.trim() === "") throw invalid("token", "token is required");
    return { kind: "token", token: input.token };
  }
  if (appFields === 0) throw invalid("token", "a token, or a GitHub App's app_id, private_key and installation_id, is required");
  if (!hasApps(provider)) throw invalid("app_id", `App credentials are for ${WITH_APPS} only`);
  if (appFields !== 3) throw invalid("app_id", "a GitHub App needs app_id, private_key and installation_id");
  return { kind: "app", app: { appId: input.app_id!, privateKey: input.private_key!, installationId: input.installation_id! } };
}

/** The columns of a sealed credential: sealed under the connection id, never to be shown; an App shows no last four. */
export function sealedColumns(sealer: Sealer, connectionId: string, c: ConnectionCredential) {
  const sealed = sealer.seal(c.kind === "token" ? c.token : JSON.stringify(c.app), connectionId);
  return { auth: c.kind, sealed_key_id: sealed.keyId, sealed_blob: sealed.blob, token_last4: c.kind === "token" ? last4(c.token) : "" };
}

export function openCredential(sealer: Sealer, row: ForgeConnectionRow): ConnectionCredential {
  const plain = sealer.open({ keyId: row.sealed_key_id, blob: row.sealed_blob }, row.id);
  return row.auth === "app" ? { kind: "app", app: JSON.parse(plain) as AppCredential } : { kind: "token", token: plain };
}

/** The forge says whose credential it is: a token's user, or an App's `<slug>[bot]`. */
export async function identityOf(forgeClients: ForgeClients, provider: ForgeProviderName, baseUrl: string | null, c: ConnectionCredential) {
  if (c.kind === "app") return onForge("the App credential", () => openForgeApp(forgeClients.network, provider, baseUrl, c.app).identity());
  const opened = forgeClients.open(provider, { forgeBaseUrl: baseUrl, token: c.token });
  if (!opened.ok) throw invalid("base_url", opened.message);
  const owner = await opened.client.tokenOwner();
  if (!owner.ok) throw forgeServiceError(owner.error, "the credential");
  return owner.value;
}
