import { createHash } from "node:crypto";
import { systemClock, type Clock } from "../core/clock.js";
import type { ForgeClient, ForgeProviderName } from "./shared/forge-client.js";
import { guardedFetch } from "./shared/forge-fetch.js";
import type { ForgeLog } from "./shared/forge-module.js";
import { ForgeNetwork } from "./shared/forge-network.js";
import { GuardedForgeClient } from "./shared/guarded-client.js";
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_LANE_DEADLINE_MS, LaneBudget } from "./shared/lane-budget.js";
import { DEFAULT_PERMISSION_TTL_MS, PermissionCache } from "./shared/permission-cache.js";
import { type ForgeTarget, parseForgeBaseUrl } from "./shared/forge-target.js";
import { forges } from "./registry.js";

export interface ForgeClientsOptions {
  /** How long a permission answer is reused (default 5 s; 0 turns the cache off). */
  permissionTtlMs?: number;
  /** One HTTP request's limit (default 2.5 s). */
  callTimeoutMs?: number;
  /** All forge calls of one lane (default 4 s, inside GitHub's 10-second delivery window). */
  laneDeadlineMs?: number;
  clock?: Clock;
  /** Where the libraries' own log lines go (default: octokit's, the console's warn and error). */
  log?: ForgeLog;
  /** Which addresses forge calls may connect to (default: public addresses only). */
  network?: ForgeNetwork;
}

export type OpenForgeResult =
  | { ok: true; client: ForgeClient }
  /** `no_base_url`: forge_c has no public instance, so a webhook without forge_base_url cannot call it. */
  | { ok: false; reason: "no_base_url" | "bad_base_url" | "no_token"; message: string };

/** Built once at boot; `open` gives each lane a client with its own deadline and the shared permission cache. */
export class ForgeClients {
  private readonly permissions: PermissionCache;
  /** Shared with every other forge call of the process (provisioning, hook health, app tokens). */
  readonly network: ForgeNetwork;

  constructor(private readonly options: ForgeClientsOptions = {}) {
    this.network = options.network ?? new ForgeNetwork();
    this.permissions = new PermissionCache({ ttlMs: options.permissionTtlMs ?? DEFAULT_PERMISSION_TTL_MS, clock: options.clock ?? systemClock });
  }

  open(provider: ForgeProviderName, target: ForgeTarget, signal?: AbortSignal): OpenForgeResult {
    if (target.token === "") return { ok: false, reason: "no_token", message: "the webhook has no forge token" };
    const module = forges[provider].api;
    const base = parseForgeBaseUrl(target.forgeBaseUrl);
    if (base === "bad") return { ok: false, reason: "bad_base_url", message: "forge_base_url is not an http(s) URL without credentials, query or fragment" };
    const apiRoot = module.apiRoot(base);
    if (apiRoot === null) return { ok: false, reason: "no_base_url", message: `${provider} has no public instance: set forge_base_url to call its API` };
    const budget = new LaneBudget(this.options.laneDeadlineMs ?? DEFAULT_LANE_DEADLINE_MS, signal);
    const fetch = guardedFetch({
      apiRoot,
      authorization: module.authorization(target.token),
      budget,
      callTimeoutMs: this.options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      retryRateLimits: !module.retriesRateLimits,
      network: this.network,
    });
    const api = module.createApi({
      apiRoot,
      fetch,
      tokenKey: createHash("sha256").update(`${apiRoot.href}\n${target.token}`).digest("hex").slice(0, 16),
      ...(this.options.log && { log: this.options.log }),
      mayRetry: (waitMs, retriesSoFar) => budget.mayRetry(waitMs, retriesSoFar),
    });
    return { ok: true, client: new GuardedForgeClient({ provider, apiRoot, api, budget, failureOf: module.failureOf, permissions: this.permissions }) };
  }
}
