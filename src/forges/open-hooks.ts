import { forges } from "./registry.js";
import type { ForgeProviderName } from "./shared/forge-client.js";
import { forgeFailure } from "./shared/forge-errors.js";
import { guardedFetch } from "./shared/forge-fetch.js";
import type { ForgeHooks, HookOptions } from "./shared/forge-hooks.js";
import type { ForgeNetwork } from "./shared/forge-network.js";
import { type ForgeTarget, parseForgeBaseUrl } from "./shared/forge-target.js";
import { type HookHttp, hookHttp } from "./shared/hook-http.js";
import { LaneBudget } from "./shared/lane-budget.js";

/** Provisioning is not inside a delivery's window: a whole provision may take this long. */
const PROVISION_DEADLINE_MS = 20_000;
const CALL_TIMEOUT_MS = 8_000;

/** A connection's hook calls (see {@link openForgeHttp}). */
export function openForgeHooks(network: ForgeNetwork, provider: ForgeProviderName, target: ForgeTarget, options: HookOptions = {}): ForgeHooks {
  return forges[provider].hooks.build(openForgeHttp(network, provider, target), options);
}

/**
 * A connection's provisioning calls, on the same API root and token header as its lane client
 * (the forge modules' rules), through the guarded fetch, so the token goes to that root alone.
 */
export function openForgeHttp(network: ForgeNetwork, provider: ForgeProviderName, target: ForgeTarget): HookHttp {
  const module = forges[provider].api;
  const base = parseForgeBaseUrl(target.forgeBaseUrl);
  const apiRoot = base === "bad" ? null : module.apiRoot(base);
  if (apiRoot === null) throw forgeFailure("forge_rejected", `${provider} needs a base URL naming its instance`);
  const fetch = guardedFetch({
    apiRoot,
    authorization: module.authorization(target.token),
    budget: new LaneBudget(PROVISION_DEADLINE_MS),
    callTimeoutMs: CALL_TIMEOUT_MS,
    retryRateLimits: true,
    network,
  });
  return hookHttp(fetch, apiRoot, forges[provider].hooks.headers);
}
