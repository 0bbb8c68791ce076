import { BoundedMap } from "../core/bounded-map.js";

/** How many keys a process remembers; past it, the oldest remembered is forgotten. */
const HELD_KEYS_MAX = 10_000;

/**
 * Idempotency keys this process saw held (by a launch it wrote, or the holder a duplicate
 * named): a hint that picks a replay's write, never its outcome. A delivery under a remembered
 * key sends the store only its key check and duplicate row, not a launch built for nothing;
 * the store checks the key under its lock as always, and a key found free (its row swept)
 * sends the launch after. Bounded: the oldest remembered key goes first.
 */
export class HeldKeys {
  /** Key → its team: keys are per team, and one Map of plain keys costs no string per look-up. */
  private readonly teams: BoundedMap<string, string>;

  constructor(max = HELD_KEYS_MAX) {
    this.teams = new BoundedMap(max);
  }

  has(teamId: string, key: string): boolean {
    return this.teams.get(key) === teamId;
  }

  /** A key remembered again keeps its place; another team's under the same key replaces it there. */
  remember(teamId: string, key: string): void {
    this.teams.set(key, teamId);
  }

  forget(teamId: string, key: string): void {
    if (this.teams.get(key) === teamId) this.teams.delete(key);
  }

  get size(): number {
    return this.teams.size;
  }
}
