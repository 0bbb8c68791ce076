import type { Clock } from "../core/clock.js";
import { invalid, notFound } from "../core/errors.js";
import type { IdGenerator } from "../core/ids.js";
import { iso } from "../core/iso.js";
import { hashToken, mintToken, sha256Hex, verifyTokenHash } from "../core/secrets.js";
import type { Db, Store } from "../store/store.js";
import * as s from "../store/sessions.js";
import { findUser } from "../store/tenancy.js";
import type { Access, Principal } from "./access.js";
import type { AuditLog } from "./audit.js";

export const SESSION_PREFIX = "ses_";
/** last_used_at is written at most this often per session. */
const TOUCH_EVERY_MS = 60_000;

export interface SessionDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  access: Access;
  audit: AuditLog;
  /** How long a full session lives (SERVICE_SESSION_TTL). */
  ttlMs: number;
}

/** Sign-in sessions: bearer tokens like personal ones, but expiring, per address, and ended by logout. */
export class Sessions {
  constructor(private readonly deps: SessionDeps) {}

  async authenticate(token: string): Promise<Principal | undefined> {
    const row = await s.findSessionByFingerprint(this.deps.store.db, sha256Hex(token));
    if (!row || !verifyTokenHash(token, row.hash)) return undefined;
    const now = this.deps.clock.now();
    if (row.revoked_at !== null || row.deactivated_at !== null || row.expires_at <= now) return undefined;
    if (row.last_used_at === null || now - row.last_used_at >= TOUCH_EVERY_MS) await s.touchSession(this.deps.store.db, row.id, now);
    return {
      userId: row.user_id,
      login: row.login,
      superAdmin: row.super_admin === 1,
      tokenId: row.id,
      sessionId: row.id,
      passwordChangeRequired: row.password_change_required === 1,
    };
  }

  /** A new session's token (shown once); `lifetimeMs` shorter than the TTL for a restricted one. */
  async open(db: Db, userId: string, address: string, restricted: boolean, lifetimeMs: number) {
    const token = mintToken(SESSION_PREFIX);
    const now = this.deps.clock.now();
    const row = {
      id: this.deps.ids.next("sid"),
      user_id: userId,
      fingerprint: sha256Hex(token),
      hash: hashToken(token),
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
    if (!(await s.revokeSession(this.deps.store.db, p.userId, sessionId, this.deps.clock.now()))) throw notFound("session");
  }

  /** Ends the session the caller is using; a personal access token is revoked with its own route. */
  async logout(p: Principal): Promise<void> {
    if (!p.sessionId) throw invalid("authorization", "logout ends a session; revoke a personal access token with DELETE /api/users/me/tokens/{id}");
    await s.revokeSession(this.deps.store.db, p.userId, p.sessionId, this.deps.clock.now());
  }

  /** A super-admin ends every session of a user; how many were open. */
  async closeAllFor(p: Principal, userId: string) {
    this.deps.access.requireSuperAdmin(p);
    return this.deps.store.tx(async (tx) => {
      if (!(await findUser(tx, userId))) throw notFound("user");
      const closed = await s.revokeUserSessions(tx, userId, this.deps.clock.now());
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
