import { BoundedMap } from "../core/bounded-map.js";
import type { Clock } from "../core/clock.js";
import type { InstallationToken } from "../forges/shared/forge-connecting.js";
/** One token per App connection of this process; the oldest are forgotten first. */
const MAX_HELD = 1_000;

/** The installation tokens of App connections, held in this process only and minted again before they expire. */
export class InstallationTokens {
  private readonly held = new BoundedMap<string, InstallationToken>(MAX_HELD);

  constructor(private readonly clock: Clock) {}

  /**
   * `key` names the connection and its credential's version, so a new private key never reuses an
   * old token; one held is minted again `refreshBeforeMs` before it expires (its forge says how long).
   */
  async get(key: string, refreshBeforeMs: number, mint: () => Promise<InstallationToken>): Promise<string> {
    const held = this.held.get(key);
    if (held !== undefined && held.expiresAt - this.clock.now() > refreshBeforeMs) return held.token;
    const fresh = await mint();
    this.held.set(key, fresh);
    return fresh.token;
  }
}
