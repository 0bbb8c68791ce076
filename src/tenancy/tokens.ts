import { checkName } from "../core/names.js";
import type { Clock } from "../core/clock.js";
import { invalid, notFound } from "../core/errors.js";
import type { IdGenerator } from "../core/ids.js";
import { last4 } from "../core/secrets.js";
import { revokeBearer } from "../store/bearers.js";
import type { Db, Store } from "../store/store.js";
import * as t from "../store/tenancy.js";
import type { Access, Principal } from "./access.js";
import type { AuditLog } from "./audit.js";
import { BEARERS, bearerDigests, mintBearer } from "./bearer.js";
import { tokenView } from "./views.js";

const MAX_LIFETIME_DAYS = 3650;

export interface TokenDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  access: Access;
  audit: AuditLog;
}

/** Personal access tokens: bearer credentials (bearer.ts) minted once, named, optionally expiring. */
export class AccessTokens {
  constructor(private readonly deps: TokenDeps) {}

  async create(p: Principal, input: { name: string; expires_in_days?: number }) {
    return this.mint(p, p.userId, input, "user");
  }

  /** A super-admin mints a token for any user. */
  async createFor(p: Principal, userId: string, input: { name: string; expires_in_days?: number }) {
    this.deps.access.requireSuperAdmin(p);
    if (!(await t.findUser(this.deps.store.db, userId))) throw notFound("user");
    return this.mint(p, userId, input, "admin");
  }

  async list(p: Principal) {
    return (await t.listAccessTokens(this.deps.store.db, p.userId)).map(tokenView);
  }

  async revoke(p: Principal, tokenId: string): Promise<void> {
    await this.deps.store.tx(async (tx) => {
      if (!(await revokeBearer(tx, BEARERS.access_token.table, p.userId, tokenId, this.deps.clock.now()))) throw notFound("token");
      await this.deps.audit.record(tx, { actorId: p.userId, action: "token.revoke", targetType: "token", targetId: tokenId });
    });
  }

  /** Stores a given plaintext (bootstrap, SERVICE_ADMIN_TOKEN); returns its row id. */
  async store(db: Db, userId: string, token: string, name: string, source: string): Promise<string> {
    const row = tokenRow(this.deps.ids.next("pat"), userId, token, name, source, this.deps.clock.now(), null);
    await t.insertAccessToken(db, row);
    return row.id;
  }

  private async mint(p: Principal, userId: string, input: { name: string; expires_in_days?: number }, source: string) {
    const name = checkName(input.name);
    const days = input.expires_in_days;
    if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > MAX_LIFETIME_DAYS)) {
      throw invalid("expires_in_days", `expires_in_days must be a whole number from 1 to ${MAX_LIFETIME_DAYS}`);
    }
    const { token } = mintBearer("access_token");
    const now = this.deps.clock.now();
    const row = tokenRow(this.deps.ids.next("pat"), userId, token, name, source, now, days === undefined ? null : now + days * 86_400_000);
    await this.deps.store.tx(async (tx) => {
      await t.insertAccessToken(tx, row);
      await this.deps.audit.record(tx, {
        actorId: p.userId,
        action: "token.create",
        targetType: "token",
        targetId: row.id,
        detail: { user_id: userId, name },
      });
    });
    return { ...tokenView(row), token };
  }
}

/** A new token's row: only its salted hash, fingerprint and last 4 characters are kept. */
function tokenRow(id: string, userId: string, token: string, name: string, source: string, now: number, expiresAt: number | null) {
  return {
    id,
    user_id: userId,
    name,
    ...bearerDigests(token),
    last4: last4(token),
    source,
    created_at: now,
    expires_at: expiresAt,
    last_used_at: null,
    revoked_at: null,
  };
}
