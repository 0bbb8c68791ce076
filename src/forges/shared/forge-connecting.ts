import type { ForgePermissions } from "../../credentials/run-credentials.js";
import type { TokenOwner } from "./forge-client.js";
import type { ForgeNetwork } from "./forge-network.js";
import type { HookHttp } from "./hook-http.js";
import type { SecurityTokenIssuer } from "./security-tokens.js";

/** What an App connection is given: the app, its private key, and its installation on the account. */
export interface AppCredential {
  appId: number;
  privateKey: string;
  installationId: number;
}

export interface InstallationToken {
  token: string;
  /** Epoch ms. */
  expiresAt: number;
}

/** A connection's credential: a token, or an App's installation where the forge has Apps. */
export type ForgeCredential = { kind: "token"; token: string } | { kind: "app"; app: AppCredential };

/** An App's own calls on one forge instance, signed with its key. */
export interface AppSession {
  /** The app's bot identity (GitHub: `<slug>[bot]`), which its installation tokens act as. */
  identity(): Promise<TokenOwner>;
  /** A fresh installation token, with the installation's permissions, over its repositories. */
  installationToken(): Promise<InstallationToken>;
  /** A fresh installation token narrowed to one repository and to these permissions (a run's BOT_FORGE_TOKEN). */
  repositoryToken(repo: string, permissions: ForgePermissions): Promise<InstallationToken>;
  /** The org's security-read tokens, minted as installation tokens. */
  securityTokens(): SecurityTokenIssuer;
}

/** Apps on a forge (GitHub Apps). */
export interface ForgeApps {
  open(network: ForgeNetwork, forgeBaseUrl: string | null, app: AppCredential): AppSession;
  /** A held installation token is replaced this long before it expires, so no call carries a dying one. */
  readonly refreshBeforeMs: number;
}

/**
 * What connecting to a forge depends on, beyond its API and hooks: its credentials, the org
 * tokens it can mint, its repository paths and whose login a connected token is.
 */
export interface ForgeConnecting {
  /** Present where a connection may be an App's installation. */
  readonly apps?: ForgeApps;
  /** The org's security-read tokens through a token credential; where this forge's token cannot mint them, why. */
  readonly securityTokens: ((http: HookHttp, now: () => number) => SecurityTokenIssuer) | { refused: string };
  /** A connected token's login is a bot account of its own (GitLab's group and project access tokens), not a person's. */
  readonly tokenLoginIsBot: boolean;
}
