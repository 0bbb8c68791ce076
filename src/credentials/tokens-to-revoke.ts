import type { Sealer } from "../core/sealer.js";
import { sha256Hex } from "../core/secrets.js";
import type { TokenToRevokeRow } from "../store/forge-tokens-to-revoke.js";

/** A forge token the service minted and will hand out no more: where it lives, and until when it works. */
export interface TokenToRevoke {
  token: string;
  teamId: string;
  connectionId: string;
  repo: string;
  /** GitLab's access token id; null where the token is its own handle (GitHub). */
  forgeTokenId: string | null;
  /** Epoch ms. */
  expiresAt: number;
  /** Epoch ms: not revoked before (a running attempt that holds it keeps it longer). */
  notBefore: number;
}

/** The row that keeps it until it is revoked: sealed under its fingerprint, which is also how attempts holding it are found. */
export function tokenToRevokeRow(sealer: Sealer, t: TokenToRevoke, now: number): TokenToRevokeRow {
  const fingerprint = sha256Hex(t.token);
  const sealed = sealer.seal(t.token, fingerprint);
  return {
    fingerprint,
    team_id: t.teamId,
    connection_id: t.connectionId,
    repo: t.repo,
    forge_token_id: t.forgeTokenId,
    sealed_key_id: sealed.keyId,
    sealed_blob: sealed.blob,
    expires_at: t.expiresAt,
    not_before: t.notBefore,
    created_at: now,
  };
}

export function openTokenToRevoke(sealer: Sealer, row: TokenToRevokeRow): string {
  return sealer.open({ keyId: row.sealed_key_id, blob: row.sealed_blob }, row.fingerprint);
}
