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
  private readonly periodic: Periodic;

  constructor(private readonly deps: PreviousSecretSweepDeps) {
    this.periodic = new Periodic("expired webhook secret sweep", SWEEP_EVERY_MS, () => this.tick(deps.clock.now()), deps.log);
  }

  /** One pass: clears every previous secret whose window ended by `now`; the number cleared. */
  tick(now: number): Promise<number> {
    return inBatches(SWEEP_BATCH, (limit) => clearExpiredPreviousSecrets(this.deps.store.db, now, limit));
  }

  start(): this {
    this.periodic.start();
    return this;
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }
}
