import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import { inBatches, Periodic } from "../core/periodic.js";
import type { Store } from "../store/store.js";
import { clearExpiredPreviousSecrets } from "../store/webhooks.js";

const SWEEP_EVERY_MS = 5 * 60_000;
const SWEEP_BATCH = 500;

export interface PreviousSecretSweepDeps {
  store: Store;
  clock: Clock;
  log: Pick<Logger, "warn">;
}

/**
 * Forgets a rotated webhook's previous secret (its hash and sealed plaintext) once its overlap has
 * ended, so an expired secret does not stay at rest until the next rotation. Every replica sweeps;
 * clearing is idempotent.
 */
export class PreviousSecretSweep {
  /** Its timer: the sweepers' catalog (src/sweepers.ts) names, starts and stops it. */
  readonly periodic: Periodic;

  constructor(private readonly deps: PreviousSecretSweepDeps) {
    this.periodic = new Periodic(SWEEP_EVERY_MS, () => this.tick(deps.clock.now()));
  }

  /** One pass: clears every previous secret whose window ended by `now`; the number cleared. */
  tick(now: number): Promise<number> {
    return inBatches(SWEEP_BATCH, (limit) => clearExpiredPreviousSecrets(this.deps.store.db, now, limit));
  }
}
