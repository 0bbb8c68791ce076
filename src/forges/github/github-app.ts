import { createAppAuth } from "@octokit/auth-app";
import { request } from "@octokit/request";
import { Type } from "typebox";
import { parseForgeBaseUrl } from "../shared/forge-target.js";
import { ForgeFailure, forgeFailure, httpFailure } from "../shared/forge-errors.js";
import { guardedFetch } from "../shared/forge-fetch.js";
import type { ForgeNetwork } from "../shared/forge-network.js";
import { LaneBudget } from "../shared/lane-budget.js";
import { githubApi } from "./github-api.js";
import { parseAnswer } from "../shared/parse-answer.js";
import type { AppCredential, InstallationToken } from "../shared/forge-connecting.js";

const App = Type.Object({ id: Type.Number(), slug: Type.String() });
const DEADLINE_MS = 20_000;

/**
 * A GitHub App's own calls through @octokit/auth-app: its JWT (signed here, never stored) asks
 * who the app is and mints installation tokens. Requests go through the guarded fetch, pinned
 * to the connection's API root; the JWT is the only Authorization they carry.
 */
export function githubApp(network: ForgeNetwork, forgeBaseUrl: string | null, credential: AppCredential) {
  const base = parseForgeBaseUrl(forgeBaseUrl);
  const apiRoot = githubApi.apiRoot(base === "bad" ? null : base)!;
  const fetch = guardedFetch({ apiRoot, budget: new LaneBudget(DEADLINE_MS), callTimeoutMs: 8_000, retryRateLimits: true, network });
  const pinned = request.defaults({ baseUrl: apiRoot.href.replace(/\/$/, ""), headers: { "user-agent": "bot-gateway" }, request: { fetch } });
  const auth = createAppAuth({ appId: credential.appId, privateKey: credential.privateKey, installationId: credential.installationId, request: pinned });
  return {
    /** The app's bot login, `<slug>[bot]`: the identity its installation tokens act as. */
    identity: () =>
      answered(async () => {
        const { token } = await auth({ type: "app" });
        const res = await pinned("GET /app", { headers: { authorization: `bearer ${token}` } });
        const app = parseAnswer(App, res.data, "the app");
        return { login: `${app.slug}[bot]`, id: app.id };
      }),
    /**
     * A new installation token (auth-app's own cache is bypassed: the caller decides when), with
     * the installation's permissions or, when named, only these; over the installation's
     * repositories or, when named (without their owner), only these.
     */
    installationToken: (permissions?: Record<string, "read" | "write">, repositoryNames?: string[]) =>
      answered(async (): Promise<InstallationToken> => {
        const minted = await auth({ type: "installation", refresh: true, ...(permissions && { permissions }), ...(repositoryNames && { repositoryNames }) });
        const expiresAt = Date.parse(minted.expiresAt);
        if (!Number.isFinite(expiresAt)) throw forgeFailure("forge_unavailable", "the installation token came without an expiry");
        return { token: minted.token, expiresAt };
      }),
    /** Revokes an installation token with itself (`DELETE /installation/token`); one already expired is gone. */
    revokeInstallationToken: (token: string) =>
      answered(async () => {
        try {
          await pinned("DELETE /installation/token", { headers: { authorization: `token ${token}` } });
        } catch (err) {
          if (githubApi.failureOf(err)?.status === 401) return;
          throw err;
        }
      }),
  };
}

/** GitHub's answer to a failed call (octokit's RequestError) as a ForgeFailure, so a refused key reads as refused. */
async function answered<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const http = githubApi.failureOf(err);
    throw http ? new ForgeFailure(httpFailure(http, Date.now())) : err;
  }
}
