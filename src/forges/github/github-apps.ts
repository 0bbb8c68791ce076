import type { ForgeApps } from "../shared/forge-connecting.js";
import { ownerAndName } from "../shared/forge-module.js";
import { githubApp } from "./github-app.js";
import { githubSecurityTokens } from "./github-security-tokens.js";

/**
 * GitHub Apps: a connection made with one calls as its installation. Installation tokens live an
 * hour; a held one is replaced five minutes before it ends. A run's token is narrowed to its
 * repository by name, without the owner (the installation's account).
 */
export const githubApps: ForgeApps = {
  refreshBeforeMs: 5 * 60_000,
  open: (network, forgeBaseUrl, credential) => {
    const app = githubApp(network, forgeBaseUrl, credential);
    return {
      identity: app.identity,
      installationToken: () => app.installationToken(),
      repositoryToken: (repo, permissions) => app.installationToken(permissions, [ownerAndName(repo).name]),
      securityTokens: () => githubSecurityTokens(app),
    };
  },
};
