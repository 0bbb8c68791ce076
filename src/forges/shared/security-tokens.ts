/** A live forge token that reads the security findings of a repository's org, as minted. */
export interface SecurityToken {
  token: string;
  /** The forge's id for it (GitLab's access token id); null where the forge names none (GitHub). */
  forgeTokenId: string | null;
  /** Epoch ms. */
  expiresAt: number;
  /** When its successor is minted: early enough that a run handed it still has time to use it. */
  renewAt: number;
}

/**
 * Mints, renews and withdraws the org's security-read token through a connection. `label` names
 * the token on the forge (one per provisioned repository), so a mint interrupted before its
 * commit is found and withdrawn by the next one.
 */
export interface SecurityTokenIssuer {
  mint(repo: string, label: string): Promise<SecurityToken>;
  /** The held token's successor; the held one stays live (for {@link revokeOne} once no run holds it), so a run that holds it is not cut off. */
  renew(repo: string, held: SecurityToken, label: string): Promise<SecurityToken>;
  /** Withdraws the held token, and any predecessor still live under `label`. */
  revoke(repo: string, held: Pick<SecurityToken, "token" | "forgeTokenId">, label: string): Promise<void>;
  /** Revokes this one token (a replaced one, or one minted for a single attempt); one already gone is nothing to do. */
  revokeOne(repo: string, held: Pick<SecurityToken, "token" | "forgeTokenId">): Promise<void>;
}
