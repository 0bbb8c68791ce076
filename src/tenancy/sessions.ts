import type { Clock } from "../core/clock.js";
import { invalid, notFound } from "../core/errors.js";
import type { IdGenerator } from "../core/ids.js";
import { iso } from "../core/iso.js";
import type { Db, Store } from "../store/store.js";
import { revokeBearer, revokeUserBearers } from "../store/bearers.js";
import * as s from "../store/sessions.js";
import { findUser } from "../store/tenancy.js";
import type { Access, Principal } from "./access.js";
import type { AuditLog } from "./audit.js";
import { BEARERS, mintBearer } from "./bearer.js";

const TABLE = BEARERS.session.table;

export interface SessionDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  access: Access;
  audit: AuditLog;
  /** How long a full session lives (SERVICE_SESSION_TTL). */
  ttlMs: number;
}

/** Sign-in sessions: bearer credentials (bearer.ts) like personal tokens, but expiring, per address, and ended by logout. */
export class Sessions {
  constructor(private readonly deps: SessionDeps) {}

  /** A new session's token (shown once); `lifetimeMs` shorter than the TTL for a restricted one. */
  async open(db: Db, userId: string, address: string, restricted: boolean, lifetimeMs: number) {
    const { token, fingerprint, hash } = mintBearer("session");
    const now = this.deps.clock.now();
    const row = {
      id: this.deps.ids.next("sid"),
      user_id: userId,
      fingerprint,
      hash,
      address,
      password_change_required: restricted ? 1 : 0,
      created_at: now,
      expires_at: now + Math.min(lifetimeMs, this.deps.ttlMs),
      last_used_at: null,
      revoked_at: null,
    };
    await s.insertSession(db, row);
    return { token, session: sessionView(row, row.id) };
  }

  async list(p: Principal) {
    return (await s.listLiveSessions(this.deps.store.db, p.userId, this.deps.clock.now())).map((r) => sessionView(r, p.sessionId));
  }

  async revoke(p: Principal, sessionId: string): Promise<void> {
    if (!(await revokeBearer(this.deps.store.db, TABLE, p.userId, sessionId, this.deps.clock.now()))) throw notFound("session");
  }

  /** Ends the session the caller is using; a personal access token is revoked with its own route. */
  async logout(p: Principal): Promise<void> {
    if (!p.sessionId) throw invalid("authorization", "logout ends a session; revoke a personal access token with DELETE /api/users/me/tokens/{id}");
    await revokeBearer(this.deps.store.db, TABLE, p.userId, p.sessionId, this.deps.clock.now());
  }

  /** A super-admin ends every session of a user; how many were open. */
  async closeAllFor(p: Principal, userId: string) {
    this.deps.access.requireSuperAdmin(p);
    return this.deps.store.tx(async (tx) => {
      if (!(await findUser(tx, userId))) throw notFound("user");
      const closed = await revokeUserBearers(tx, TABLE, userId, this.deps.clock.now());
      await this.deps.audit.record(tx, { actorId: p.userId, action: "user.sessions.close", targetType: "user", targetId: userId, detail: { closed } });
      return { closed };
    });
  }
}

export function sessionView(r: s.SessionRow, currentId: string | undefined) {
  return {
    id: r.id,
    address: r.address,
    password_change_required: r.password_change_required === 1,
    current: r.id === currentId,
    created_at: iso(r.created_at),
    last_used_at: iso(r.last_used_at),
    expires_at: iso(r.expires_at),
  };
}
