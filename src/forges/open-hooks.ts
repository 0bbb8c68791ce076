import type { ForgeProviderName } from "./shared/forge-client.js";
import { type ForgeTarget, parseForgeBaseUrl } from "./forge-clients.js";
import { forgeFailure } from "./shared/forge-errors.js";
import { guardedFetch } from "./shared/forge-fetch.js";
import type { ForgeNetwork } from "./shared/forge-network.js";
import { LaneBudget } from "./shared/lane-budget.js";
import { forgeModules } from "./registry.js";
import type { ForgeHooks } from "./shared/forge-hooks.js";
import { forgejoHooks } from "./forgejo/forgejo-hooks.js";
import { githubHooks } from "./github/github-hooks.js";
import { gitlabHooks } from "./gitlab/gitlab-hooks.js";
import { type HookHttp, hookHttp } from "./shared/hook-http.js";

/** Every forge's hook calls; leaving one out is a compile error. */
const hookModules = {
  forge_a: { build: (http: HookHttp) => gitlabHooks(http), headers: {} },
  forge_b: { build: githubHooks, headers: { accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28" } },
  forge_c: { build: (http: HookHttp) => forgejoHooks(http), headers: {} },
} satisfies Record<ForgeProviderName, { build: (http: HookHttp, o: HookOptions) => ForgeHooks; headers: Record<string, string> }>;

export interface HookOptions {
  /** A GitHub App installation's token: its repositories are the installation's. */
  installation?: boolean;
}

/** Provisioning is not inside a delivery's window: a whole provision may take this long. */
const PROVISION_DEADLINE_MS = 20_000;
const CALL_TIMEOUT_MS = 8_000;

/** A connection's hook calls (see {@link openForgeHttp}). */
export function openForgeHooks(network: ForgeNetwork, provider: ForgeProviderName, target: ForgeTarget, options: HookOptions = {}): ForgeHooks {
  return hookModules[provider].build(openForgeHttp(network, provider, target), options);
}

/**
 * A connection's provisioning calls, on the same API root and token header as its lane client
 * (the forge modules' rules), through the guarded fetch, so the token goes to that root alone.
 */
export function openForgeHttp(network: ForgeNetwork, provider: ForgeProviderName, target: ForgeTarget): HookHttp {
  const module = forgeModules[provider];
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
  return hookHttp(fetch, apiRoot, hookModules[provider].headers);
}
