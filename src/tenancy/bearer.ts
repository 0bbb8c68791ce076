import type { Clock } from "../core/clock.js";
import { hashToken, mintToken, sha256Hex, verifyTokenHash } from "../core/secrets.js";
import { type BearerRow, type BearerTable, findBearerByFingerprint, touchBearer } from "../store/bearers.js";
import type { Store } from "../store/store.js";
import type { Principal } from "./access.js";

/**
 * The bearer credentials a person holds, by the prefix their tokens carry: personal access
 * tokens (iap_, until revoked or their optional expiry) and sign-in sessions (ses_, per address,
 * always expiring, ended by logout). Runners' tokens are the runner desk's, not these.
 */
export const BEARERS = {
  access_token: { prefix: "iap_", table: "access_tokens" },
  session: { prefix: "ses_", table: "sessions" },
} as const satisfies Record<string, { prefix: string; table: BearerTable }>;
export type BearerKind = keyof typeof BEARERS;

export const PAT_PREFIX = BEARERS.access_token.prefix;
export const SESSION_PREFIX = BEARERS.session.prefix;

/** last_used_at is written at most this often per credential, to keep reads free of writes. */
const TOUCH_EVERY_MS = 60_000;

/** What the store keeps of a token: its SHA-256 (the lookup key) and its salted hash (checked after the lookup). */
export function bearerDigests(token: string): { fingerprint: string; hash: string } {
  return { fingerprint: sha256Hex(token), hash: hashToken(token) };
}

/** A new credential of the kind: the plaintext, shown once, and its digests. */
export function mintBearer(kind: BearerKind): { token: string; fingerprint: string; hash: string } {
  const token = mintToken(BEARERS[kind].prefix);
  return { token, ...bearerDigests(token) };
}

const KINDS = Object.keys(BEARERS) as BearerKind[];

/** The one check of a presented bearer token, whichever kind it is. */
export class Bearers {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  /** The principal behind a token, or undefined when it is unknown, revoked, expired or its user deactivated. */
  async authenticate(token: string): Promise<Principal | undefined> {
    const kind = KINDS.find((k) => token.startsWith(BEARERS[k].prefix));
    if (!kind) return undefined;
    const { table } = BEARERS[kind];
    const db = this.deps.store.db;
    const row = await findBearerByFingerprint(db, table, sha256Hex(token));
    if (!row || !verifyTokenHash(token, row.hash)) return undefined;
    const now = this.deps.clock.now();
    if (row.revoked_at !== null || row.deactivated_at !== null || (row.expires_at !== null && row.expires_at <= now)) return undefined;
    if (row.last_used_at === null || now - row.last_used_at >= TOUCH_EVERY_MS) await touchBearer(db, table, row.id, now);
    return principalOf(kind, row);
  }
}

function principalOf(kind: BearerKind, row: BearerRow<BearerTable>): Principal {
  const principal = { userId: row.user_id, login: row.login, superAdmin: row.super_admin === 1, tokenId: row.id };
  if (kind === "access_token") return principal;
  const session = row as BearerRow<"sessions">;
  return { ...principal, sessionId: session.id, passwordChangeRequired: session.password_change_required === 1 };
}
