import type { Clock } from "../core/clock.js";
import type { IdGenerator } from "../core/ids.js";
import { sha256Hex } from "../core/secrets.js";
import { findBearerByFingerprint } from "../store/bearers.js";
import type { Store } from "../store/store.js";
import * as t from "../store/tenancy.js";
import { BEARERS, mintBearer } from "./bearer.js";
import type { AccessTokens } from "./tokens.js";

export interface BootstrapDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  tokens: AccessTokens;
}

export type BootstrapResult = { kind: "env-token"; created: boolean } | { kind: "minted"; token: string } | { kind: "nothing" };

const ADMIN_LOGIN = "admin";

/**
 * Makes sure an operator can get in. With SERVICE_ADMIN_TOKEN, that token is a super-admin's
 * (idempotent; a replaced value revokes the previous one). Without it, the first start on an
 * empty store creates the super-admin and returns a one-time token for the caller to print.
 */
export async function bootstrapAdmin(deps: BootstrapDeps, adminToken: string): Promise<BootstrapResult> {
  return deps.store.tx(async (tx) => {
    if (adminToken) {
      const existing = await findBearerByFingerprint(tx, BEARERS.access_token.table, sha256Hex(adminToken));
      if (existing) {
        // The environment is the operator's word: a token revoked through the API comes back.
        if (existing.revoked_at !== null) await t.reinstateAccessToken(tx, existing.id);
        return { kind: "env-token", created: false };
      }
      const admin = await ensureAdminUser(deps, tx);
      const id = await deps.tokens.store(tx, admin, adminToken, "SERVICE_ADMIN_TOKEN", "env");
      await t.revokeAccessTokensBySource(tx, "env", id, deps.clock.now());
      return { kind: "env-token", created: true };
    }
    if ((await t.countUsers(tx)) > 0) return { kind: "nothing" };
    const admin = await ensureAdminUser(deps, tx);
    const { token } = mintBearer("access_token");
    await deps.tokens.store(tx, admin, token, "bootstrap", "bootstrap");
    return { kind: "minted", token };
  });
}

async function ensureAdminUser(deps: BootstrapDeps, tx: Parameters<typeof t.findUserByLogin>[0]): Promise<string> {
  const found = await t.findUserByLogin(tx, ADMIN_LOGIN);
  if (found) return found.id;
  const id = deps.ids.next("usr");
  await t.insertUser(tx, { id, login: ADMIN_LOGIN, name: "Administrator", super_admin: 1, created_at: deps.clock.now() });
  return id;
}
