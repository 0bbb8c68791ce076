import type { SecurityToken, SecurityTokenIssuer } from "../shared/security-tokens.js";
import type { githubApp } from "./github-app.js";

const MINUTE = 60_000;

/** Code scanning, Dependabot and secret scanning alerts, read only (GitHub's App permission names). */
export const GITHUB_SECURITY_READ = { security_events: "read", vulnerability_alerts: "read", secret_scanning_alerts: "read", metadata: "read" } as const;
/** GitHub's installation tokens live an hour: a run is handed one with at least this long left. */
const GITHUB_RENEW_BEFORE_MS = 30 * MINUTE;

/**
 * GitHub: an installation token of the App limited to the security-read permissions, over every
 * repository of the installation (the org). It cannot be renewed, only replaced: the one before
 * stays live until the runs that hold it have ended, so none is cut off.
 */
export function githubSecurityTokens(app: Pick<ReturnType<typeof githubApp>, "installationToken" | "revokeInstallationToken">): SecurityTokenIssuer {
  const mint = async (): Promise<SecurityToken> => {
    const minted = await app.installationToken(GITHUB_SECURITY_READ);
    return { token: minted.token, forgeTokenId: null, expiresAt: minted.expiresAt, renewAt: minted.expiresAt - GITHUB_RENEW_BEFORE_MS };
  };
  const revoke = (_repo: string, held: Pick<SecurityToken, "token">) => app.revokeInstallationToken(held.token);
  return { mint, renew: mint, revoke, revokeOne: revoke };
}
