import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import { ServiceError } from "../core/errors.js";
import { Periodic } from "../core/periodic.js";
import type { Sealer } from "../core/sealer.js";
import { openTokenToRevoke } from "../credentials/tokens-to-revoke.js";
import type { Metrics } from "../metrics/metrics.js";
import { findForgeConnectionOfTeam } from "../store/forge-connections.js";
import { deleteTokenToRevoke, takeTokensToRevoke, type TokenToRevokeRow } from "../store/forge-tokens-to-revoke.js";
import type { Store } from "../store/store.js";
import type { ConnectionService } from "./connection-service.js";

/** A pass also runs whenever an attempt ends; this one catches what those missed (a crash, another replica's attempt). */
const PASS_EVERY_MS = 60_000;
const BATCH = 50;
/** A taken token is left to its replica this long; one whose revocation failed is tried again after it. */
const LEASE_MS = 5 * 60_000;

export interface TokenRevocationsDeps {
  store: Store;
  clock: Clock;
  sealer: Sealer;
  connections: Pick<ConnectionService, "open">;
  metrics: Metrics;
  log: Logger;
}

/**
 * What became of a token taken for revocation: revoked on its forge; `expired`, forgotten without a
 * call; `connection_gone`, forgotten with nothing left to revoke it with; `failed`, the forge (or
 * the store) refused, and taken again when its lease ends.
 */
export type RevocationResult = "revoked" | "expired" | "connection_gone" | "failed";

/**
 * Revokes on their forge the tokens the service minted and no longer hands out (a renewed
 * security-read token's predecessor, an App installation token minted for one attempt) as soon
 * as no running attempt holds them: the attempts that were handed one have finished, failed,
 * been cancelled or been reclaimed. One past its expiry is only forgotten.
 */
export class TokenRevocations {
  /** Its timer: the sweepers' catalog (src/sweepers.ts) names, starts and stops it. */
  readonly periodic: Periodic;
  /** An attempt ended since the nudge's last pass began. */
  private ended = false;
  private nudging = false;

  constructor(private readonly deps: TokenRevocationsDeps) {
    this.periodic = new Periodic(PASS_EVERY_MS, () => this.revokeReleased());
  }

  /**
   * An attempt ended: a pass now, off the caller's path, and one more after it when another
   * attempt ends meanwhile. Not joined to a timer pass that may have read before this attempt
   * ended; the two may overlap (each token is taken by one pass).
   */
  attemptEnded(): void {
    this.ended = true;
    if (this.nudging) return;
    this.nudging = true;
    void (async () => {
      try {
        while (this.ended) {
          this.ended = false;
          await this.revokeReleased();
        }
      } catch (err) {
        this.deps.log.warn({ err }, "forge token revocation failed; retried at the next pass");
      } finally {
        this.nudging = false;
      }
    })();
  }

  /** One pass: every token due that no running attempt holds is revoked (or forgotten when expired). Answers how many were revoked. */
  async revokeReleased(): Promise<number> {
    const { store, clock } = this.deps;
    const now = clock.now();
    let revoked = 0;
    for (const row of await takeTokensToRevoke(store.db, now, LEASE_MS, BATCH)) {
      // The connection's provider labels the count; a connection deleted since names none.
      let provider = "unknown";
      let result: RevocationResult;
      try {
        provider = (await findForgeConnectionOfTeam(store.db, row.team_id, row.connection_id))?.provider ?? provider;
        result = row.expires_at <= now ? "expired" : await this.revoke(row);
        await deleteTokenToRevoke(store.db, row.fingerprint);
      } catch (err) {
        result = "failed";
        this.deps.log.warn({ err, connection_id: row.connection_id, repo: row.repo }, "revoking a forge token failed; tried again later");
      }
      this.deps.metrics.forgeTokenRevocations.inc({ provider, result });
      if (result === "revoked") revoked++;
    }
    return revoked;
  }

  private async revoke(row: TokenToRevokeRow): Promise<"revoked" | "connection_gone"> {
    const conn = await this.deps.connections.open(this.deps.store.db, row.team_id, row.connection_id).catch((err: unknown) => {
      if (err instanceof ServiceError && err.code === "not_found") return undefined;
      throw err;
    });
    if (!conn) return "connection_gone";
    await conn.securityTokens().revokeOne(row.repo, { token: openTokenToRevoke(this.deps.sealer, row), forgeTokenId: row.forge_token_id });
    return "revoked";
  }
}
