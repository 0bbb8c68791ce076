import type { Clock } from "../core/clock.js";
import { conflict } from "../core/errors.js";
import { claimRepoBotWrite, releaseRepoBotWrite } from "../store/forge-connections.js";
import type { Store } from "../store/store.js";

/** Longer than a whole provision's forge calls may take (open-hooks.ts), so a live writer never loses it. */
const WRITE_LEASE_MS = 60_000;

/**
 * One writer at a time of a repository's things on the forge (its hook, its security token),
 * across replicas; a crashed writer's lease runs out. `held: false` when another holds it.
 */
export async function tryRepoBotLease<T>(
  store: Store,
  clock: Clock,
  repoBotId: string,
  work: () => Promise<T>,
): Promise<{ held: true; value: T } | { held: false }> {
  const now = clock.now();
  if (!(await claimRepoBotWrite(store.db, repoBotId, now, now + WRITE_LEASE_MS))) return { held: false };
  try {
    return { held: true, value: await work() };
  } finally {
    await releaseRepoBotWrite(store.db, repoBotId).catch(() => undefined);
  }
}

/** {@link tryRepoBotLease} for a person's call: 409 while another writer holds the lease. */
export async function withRepoBotLease<T>(store: Store, clock: Clock, repoBotId: string, work: () => Promise<T>): Promise<T> {
  const leased = await tryRepoBotLease(store, clock, repoBotId, work);
  if (!leased.held) throw conflict("another provision of this repository is writing to the forge; try again shortly");
  return leased.value;
}
