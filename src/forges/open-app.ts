import { forges } from "./registry.js";
import type { ForgeProviderName } from "./shared/forge-client.js";
import type { AppCredential, AppSession, ForgeApps, ForgeConnecting } from "./shared/forge-connecting.js";
import { forgeFailure } from "./shared/forge-errors.js";
import type { ForgeNetwork } from "./shared/forge-network.js";

/** The forge's Apps, where a connection to it may be an App's installation. */
export function forgeApps(provider: ForgeProviderName): ForgeApps | undefined {
  const connecting: ForgeConnecting = forges[provider].connecting;
  return connecting.apps;
}

/** Whether a connection to this forge may be an App's installation. */
export const hasApps = (provider: ForgeProviderName): boolean => forgeApps(provider) !== undefined;

/** An App connection's own calls, on its forge's instance; a forge without Apps refuses. */
export function openForgeApp(network: ForgeNetwork, provider: ForgeProviderName, forgeBaseUrl: string | null, app: AppCredential): AppSession {
  const apps = forgeApps(provider);
  if (!apps) throw forgeFailure("forge_rejected", `${provider} (${forges[provider].name}) has no Apps to connect as`);
  return apps.open(network, forgeBaseUrl, app);
}
