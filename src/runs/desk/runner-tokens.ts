import type { Clock } from "../../core/clock.js";
import { notFound } from "../../core/errors.js";
import type { IdGenerator } from "../../core/ids.js";
import { iso } from "../../core/iso.js";
import { checkName } from "../../core/names.js";
import { hashToken, last4, mintToken, sha256Hex, verifyTokenHash } from "../../core/secrets.js";
import * as r from "../../store/runner-tokens.js";
import type { PoolScope, RunnerTokenRow } from "../../store/runner-tokens.js";
import type { Store } from "../../store/store.js";
import type { Access, Principal } from "../../tenancy/access.js";
import type { AuditLog } from "../../tenancy/audit.js";

export const RUNNER_TOKEN_PREFIX = "rnr_";
/** last_seen_at is written at most this often per token, so a heartbeat is not also a write of its token. */
const TOUCH_EVERY_MS = 5_000;

/** A runner as the service knows it from its token: its row id, name and pool. */
export interface RunnerIdentity {
  /** The runner token's id; null for the service's own in-process runner. */
  id: string | null;
  name: string;
  scope: PoolScope;
  /** Which secret of the token authenticated it: a rotation since makes it stale. */
  fingerprint?: string;
}

export interface RunnerTokensDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  access: Access;
  audit: AuditLog;
  /** A runner seen this recently counts as connected. */
  connectedWithinMs: number;
}

/**
 * Runner tokens (`rnr_…`): minted into the platform's pool by a super-admin or into an org's
 * pool by its admin, shown once, stored as fingerprint + salted hash; listed, revoked, rotated.
 */
export class RunnerTokens {
  constructor(private readonly deps: RunnerTokensDeps) {}

  /** The runner behind a bearer token, or undefined when it is unknown or revoked. */
  async authenticate(token: string): Promise<RunnerIdentity | undefined> {
    if (!token.startsWith(RUNNER_TOKEN_PREFIX)) return undefined;
    const row = await r.findRunnerTokenByFingerprint(this.deps.store.db, sha256Hex(token));
    if (!row || !verifyTokenHash(token, row.hash) || row.revoked_at !== null) return undefined;
    const now = this.deps.clock.now();
    if (row.last_seen_at === null || now - row.last_seen_at >= TOUCH_EVERY_MS) await r.touchRunnerToken(this.deps.store.db, row.id, now);
    return { id: row.id, name: row.name, scope: scopeOf(row), fingerprint: row.fingerprint };
  }

  /** Whether the runner's token still holds (not revoked since it authenticated); the in-process runner always does. */
  async live(runner: RunnerIdentity): Promise<boolean> {
    if (runner.id === null) return true;
    const row = await r.findRunnerTokenById(this.deps.store.db, runner.id);
    return row !== undefined && row.revoked_at === null && row.fingerprint === runner.fingerprint;
  }

  /** Live runners seen within the lease window, per pool (service_runners_connected). */
  async connected(): Promise<Partial<Record<"platform" | "org", number>>> {
    const rows = await r.countRunnersSeen(this.deps.store.db, this.deps.clock.now() - this.deps.connectedWithinMs);
    return Object.fromEntries(rows.map((row) => [row.pool, row.n]));
  }

  async create(p: Principal, scope: PoolScope, input: { name: string }) {
    await this.authorise(p, scope);
    const name = checkName(input.name);
    const token = mintToken(RUNNER_TOKEN_PREFIX);
    const now = this.deps.clock.now();
    const row: RunnerTokenRow = {
      id: this.deps.ids.next("rtk"),
      pool: scope.pool,
      org_id: scope.pool === "org" ? scope.orgId : null,
      name,
      ...secretColumns(token),
      created_by: p.userId,
      created_at: now,
      rotated_at: null,
      last_seen_at: null,
      revoked_at: null,
    };
    await this.deps.store.tx(async (tx) => {
      await r.insertRunnerToken(tx, row);
      await this.audit(tx, p, "runner.create", row.id, scope, { name });
    });
    return { ...this.view(row), token };
  }

  async list(p: Principal, scope: PoolScope) {
    await this.authorise(p, scope);
    return (await r.listRunnerTokens(this.deps.store.db, scope)).map((row) => this.view(row));
  }

  /** Refused at its next call; the runs it holds are reclaimed when their leases lapse (RUNNER_LOST). */
  async revoke(p: Principal, scope: PoolScope, id: string): Promise<void> {
    await this.authorise(p, scope);
    await this.deps.store.tx(async (tx) => {
      if (!(await r.revokeRunnerToken(tx, id, scope, this.deps.clock.now()))) throw notFound("runner");
      await this.audit(tx, p, "runner.revoke", id, scope);
    });
  }

  /** A new secret for the same runner; the old one is refused from now on. */
  async rotate(p: Principal, scope: PoolScope, id: string) {
    await this.authorise(p, scope);
    const token = mintToken(RUNNER_TOKEN_PREFIX);
    const now = this.deps.clock.now();
    await this.deps.store.tx(async (tx) => {
      if (!(await r.replaceRunnerTokenSecret(tx, id, scope, { ...secretColumns(token), now }))) throw notFound("runner");
      await this.audit(tx, p, "runner.rotate", id, scope);
    });
    const row = await r.findRunnerToken(this.deps.store.db, id, scope);
    if (!row) throw notFound("runner");
    return { ...this.view(row), token };
  }

  private async authorise(p: Principal, scope: PoolScope): Promise<void> {
    if (scope.pool === "platform") this.deps.access.requireSuperAdmin(p);
    else await this.deps.access.org(p, scope.orgId, "admin");
  }

  private audit(db: import("../../store/store.js").Db, p: Principal, action: string, id: string, scope: PoolScope, detail?: Record<string, unknown>) {
    return this.deps.audit.record(db, {
      actorId: p.userId,
      action,
      targetType: "runner",
      targetId: id,
      orgId: scope.pool === "org" ? scope.orgId : null,
      detail: { pool: scope.pool, ...detail },
    });
  }

  private view(row: RunnerTokenRow) {
    const now = this.deps.clock.now();
    const status: "online" | "offline" | "revoked" =
      row.revoked_at !== null ? "revoked" : row.last_seen_at !== null && now - row.last_seen_at <= this.deps.connectedWithinMs ? "online" : "offline";
    return {
      id: row.id,
      name: row.name,
      pool: row.pool,
      org_id: row.org_id,
      last4: row.last4,
      status,
      created_at: iso(row.created_at),
      rotated_at: iso(row.rotated_at),
      last_seen_at: iso(row.last_seen_at),
      revoked_at: iso(row.revoked_at),
    };
  }
}

function scopeOf(row: RunnerTokenRow): PoolScope {
  return row.pool === "org" && row.org_id !== null ? { pool: "org", orgId: row.org_id } : { pool: "platform" };
}

function secretColumns(token: string) {
  return { fingerprint: sha256Hex(token), hash: hashToken(token), last4: last4(token) };
}
