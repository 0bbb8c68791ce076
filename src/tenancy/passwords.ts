import type { BoundedWork } from "../core/bounded-work.js";
import type { Clock } from "../core/clock.js";
import { ServiceError, invalid, notFound } from "../core/errors.js";
import type { IdGenerator } from "../core/ids.js";
import { iso } from "../core/iso.js";
import { checkPassword, hashPassword, verifyPassword } from "../core/passwords.js";
import { mintToken, sha256Hex } from "../core/secrets.js";
import type { Metrics } from "../metrics/metrics.js";
import { setUserPassword } from "../store/passwords.js";
import { revokeUserBearers } from "../store/bearers.js";
import * as s from "../store/sessions.js";
import type { Store } from "../store/store.js";
import * as t from "../store/tenancy.js";
import type { Access, Principal } from "./access.js";
import type { AuditLog } from "./audit.js";
import { BEARERS } from "./bearer.js";
import { SIGN_IN_POLICY } from "./sign-in-policy.js";

export const RESET_PREFIX = "prt_";

export interface PasswordDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  access: Access;
  audit: AuditLog;
  metrics: Metrics;
  /** The process's password hashing, shared with sign-in. */
  hashing: BoundedWork;
}

/** Setting passwords: one's own, an admin's choice (to be changed at sign-in), and single-use resets. */
export class Passwords {
  constructor(private readonly deps: PasswordDeps) {}

  private hash(password: string): Promise<string> {
    return this.deps.hashing.run(() => hashPassword(password));
  }

  /** With the current password, or a reset token; the caller's other sessions end. */
  async changeOwn(p: Principal, input: { password: string; current_password?: string; reset_token?: string }) {
    const password = checkPassword(input.password);
    if (input.reset_token !== undefined) return this.confirmReset(input.reset_token, password, p);
    const user = await t.findUser(this.deps.store.db, p.userId);
    if (!user) throw notFound("user");
    if (
      user.password_hash !== null &&
      !(input.current_password !== undefined && (await this.deps.hashing.run(() => verifyPassword(input.current_password!, user.password_hash!))))
    ) {
      throw new ServiceError("forbidden", "current_password is missing or wrong", "current_password");
    }
    return this.set(p.userId, await this.hash(password), {
      actorId: p.userId,
      changeRequired: false,
      keepSession: p.sessionId,
      action: "user.password.change",
    });
  }

  /** A super-admin chooses a user's password; the user must change it at their next sign-in. */
  async setByAdmin(p: Principal, userId: string, password: string) {
    this.deps.access.requireSuperAdmin(p);
    const hash = await this.hash(checkPassword(password));
    return this.set(userId, hash, { actorId: p.userId, changeRequired: true, action: "user.password.set" });
  }

  /** A reset token for the user, shown once; older unused ones stop working. */
  async issueReset(p: Principal, userId: string) {
    await this.requireResetRight(p, userId);
    const token = mintToken(RESET_PREFIX);
    const now = this.deps.clock.now();
    const expiresAt = now + SIGN_IN_POLICY.resetTtlMs;
    const id = this.deps.ids.next("rst");
    await this.deps.store.tx(async (tx) => {
      await s.voidPasswordResets(tx, userId, now);
      await s.insertPasswordReset(tx, {
        id,
        user_id: userId,
        fingerprint: sha256Hex(token),
        created_by: p.userId,
        created_at: now,
        expires_at: expiresAt,
        used_at: null,
      });
      await this.deps.audit.record(tx, { actorId: p.userId, action: "user.password.reset", targetType: "user", targetId: userId, detail: { reset_id: id } });
    });
    this.deps.metrics.authPasswordResets.inc({ step: "requested" });
    return { id, user_id: userId, token, expires_at: iso(expiresAt) };
  }

  /** Spends a reset token (once, unexpired) to set the password; every session of the user ends. */
  async confirmReset(token: string, password: string, caller?: Principal) {
    checkPassword(password);
    const hash = await this.hash(password);
    const result = await this.deps.store.tx(async (tx) => {
      const userId = await s.usePasswordReset(tx, sha256Hex(token), this.deps.clock.now());
      // A signed-in caller may spend only a token issued for themselves.
      if (!userId || (caller && caller.userId !== userId)) throw invalid("reset_token", "reset token is unknown, used or expired");
      return this.setIn(tx, userId, hash, { actorId: userId, changeRequired: false, keepSession: caller?.sessionId, action: "user.password.reset.confirm" });
    });
    this.deps.metrics.authPasswordResets.inc({ step: "confirmed" });
    return result;
  }

  private set(userId: string, hash: string, how: SetHow) {
    return this.deps.store.tx((tx) => this.setIn(tx, userId, hash, how));
  }

  private async setIn(tx: import("../store/store.js").Db, userId: string, hash: string, how: SetHow) {
    const now = this.deps.clock.now();
    if (!(await setUserPassword(tx, userId, hash, now, how.changeRequired))) throw notFound("user");
    const closed = await revokeUserBearers(tx, BEARERS.session.table, userId, now, how.keepSession);
    if (how.keepSession) await s.clearSessionRestriction(tx, how.keepSession);
    await this.deps.audit.record(tx, { actorId: how.actorId, action: how.action, targetType: "user", targetId: userId, detail: { sessions_closed: closed } });
    return { user_id: userId, password_set_at: iso(now), password_change_required: how.changeRequired, sessions_closed: closed };
  }

  /**
   * A super-admin, or an org admin of every org the user belongs to (a reset hands over the
   * user's access everywhere); never an org admin for a super-admin. Strangers see not found.
   */
  private async requireResetRight(p: Principal, userId: string): Promise<void> {
    const db = this.deps.store.db;
    const user = await t.findUser(db, userId);
    if (!user) throw notFound("user");
    if (p.superAdmin) return;
    const orgs = await t.listOrgMemberships(db, userId);
    const roles = await Promise.all(orgs.map((o) => t.findOrgRole(db, o.id, p.userId)));
    if (!roles.includes("admin")) throw notFound("user");
    if (user.super_admin === 1 || roles.some((r) => r !== "admin")) throw new ServiceError("forbidden", "super-admin role required to reset this user");
  }
}

interface SetHow {
  actorId: string;
  changeRequired: boolean;
  keepSession?: string | undefined;
  action: string;
}
