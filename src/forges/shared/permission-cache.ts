import { BoundedMap } from "../../core/bounded-map.js";
import type { Clock } from "../../core/clock.js";
import type { ForgeRole } from "./forge-client.js";

/** Long enough to spare the forge a burst of commands in one thread, short enough that a revoked role soon counts. */
export const DEFAULT_PERMISSION_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

export interface PermissionCacheOptions {
  /** 0 turns the cache off. */
  ttlMs: number;
  clock: Clock;
}

/**
 * Successful permission answers per (forge API root, repository, login), for a few seconds.
 * Forges compare logins and paths without case, so neither does the key.
 */
export class PermissionCache {
  private readonly entries = new BoundedMap<string, { role: ForgeRole | "none"; until: number }>(MAX_ENTRIES);

  constructor(private readonly options: PermissionCacheOptions) {}

  get(apiRoot: string, repo: string, login: string): ForgeRole | "none" | undefined {
    const key = keyOf(apiRoot, repo, login);
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    if (hit.until > this.options.clock.now()) return hit.role;
    this.entries.delete(key);
    return undefined;
  }

  set(apiRoot: string, repo: string, login: string, role: ForgeRole | "none"): void {
    if (this.options.ttlMs <= 0) return;
    const key = keyOf(apiRoot, repo, login);
    // Deleting first moves a refreshed key to the newest end, so the bound drops stale keys first.
    this.entries.delete(key);
    this.entries.set(key, { role, until: this.options.clock.now() + this.options.ttlMs });
  }
}

const keyOf = (apiRoot: string, repo: string, login: string) => `${apiRoot}\n${repo.toLowerCase()}\n${login.toLowerCase()}`;
