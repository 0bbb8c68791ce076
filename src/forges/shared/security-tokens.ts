import { Type } from "typebox";
import { AnswerId, idText, parseAnswer } from "./parse-answer.js";
import type { githubApp } from "../github/github-app.js";
import { deleteOrGone, type HookHttp } from "./hook-http.js";

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
  /** The held token's successor; the held one stays live until it expires, so a run that holds it is not cut off. */
  renew(repo: string, held: SecurityToken, label: string): Promise<SecurityToken>;
  /** Withdraws the held token, and any predecessor still live under `label`. */
  revoke(repo: string, held: Pick<SecurityToken, "token" | "forgeTokenId">, label: string): Promise<void>;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Code scanning, Dependabot and secret scanning alerts, read only (GitHub's App permission names). */
export const GITHUB_SECURITY_READ = { security_events: "read", vulnerability_alerts: "read", secret_scanning_alerts: "read", metadata: "read" } as const;
/** GitHub's installation tokens live an hour: a run is handed one with at least this long left. */
const GITHUB_RENEW_BEFORE_MS = 30 * MINUTE;

/**
 * GitHub: an installation token of the App limited to the security-read permissions, over every
 * repository of the installation (the org). It cannot be renewed, only replaced: the one before
 * lives out its hour, so a run that holds it is not cut off.
 */
export function githubSecurityTokens(app: Pick<ReturnType<typeof githubApp>, "installationToken" | "revokeInstallationToken">): SecurityTokenIssuer {
  const mint = async (): Promise<SecurityToken> => {
    const minted = await app.installationToken(GITHUB_SECURITY_READ);
    return { token: minted.token, forgeTokenId: null, expiresAt: minted.expiresAt, renewAt: minted.expiresAt - GITHUB_RENEW_BEFORE_MS };
  };
  return { mint, renew: mint, revoke: (_repo, held) => app.revokeInstallationToken(held.token) };
}

/** GitLab's group access tokens: read_api as a Developer (the least role that reads vulnerabilities), for this long. */
const GITLAB_LIFETIME_MS = 30 * DAY;
const GITLAB_RENEW_BEFORE_MS = 7 * DAY;
const GITLAB_DEVELOPER = 30;
const GroupToken = Type.Object({ id: AnswerId, token: Type.String(), expires_at: Type.String() });
const ListedToken = Type.Object({ id: AnswerId, name: Type.String(), active: Type.Optional(Type.Boolean()) });

/**
 * GitLab: a group access token on the repository's top-level group (its org), succeeded a week
 * before it expires by a new token under the same name. Not through GitLab's rotate endpoint,
 * which revokes the one before at once and so cuts off a run that holds it: the predecessor lives
 * out its last week, the overlap runs handed it need, and a withdrawal revokes every live token of
 * the name. https://docs.gitlab.com/api/group_access_tokens/
 */
export function gitlabSecurityTokens(http: HookHttp, now: () => number): SecurityTokenIssuer {
  const tokens = (repo: string) => `groups/${encodeURIComponent(repo.split("/")[0]!)}/access_tokens`;
  const expiresAt = () => ({ expires_at: new Date(now() + GITLAB_LIFETIME_MS).toISOString().slice(0, 10) });
  const minted = (data: unknown): SecurityToken => {
    const t = parseAnswer(GroupToken, data, "a group access token");
    // The date is the day it stops working, from its first moment (UTC).
    const ends = Date.parse(`${t.expires_at}T00:00:00Z`);
    return { token: t.token, forgeTokenId: idText(t.id), expiresAt: ends, renewAt: ends - GITLAB_RENEW_BEFORE_MS };
  };
  const revoke = (repo: string, id: string) => deleteOrGone(() => http.call("DELETE", `${tokens(repo)}/${encodeURIComponent(id)}`));
  /** Every live token named `label`: an interrupted mint's orphan, or a renewed token's predecessor. */
  const revokeLabelled = async (repo: string, label: string, except?: string) => {
    const listed = parseAnswer(Type.Array(ListedToken), await http.all(`${tokens(repo)}?state=active&per_page=100`), "group access tokens");
    for (const t of listed.filter((t) => t.name === label && t.active !== false && idText(t.id) !== except)) await revoke(repo, idText(t.id));
  };
  const create = async (repo: string, label: string) =>
    minted(await http.call("POST", tokens(repo), { name: label, scopes: ["read_api"], access_level: GITLAB_DEVELOPER, ...expiresAt() }));
  return {
    mint: async (repo, label) => {
      await revokeLabelled(repo, label);
      return create(repo, label);
    },
    renew: (repo, _held, label) => create(repo, label),
    revoke: async (repo, held, label) => {
      if (held.forgeTokenId !== null) await revoke(repo, held.forgeTokenId);
      await revokeLabelled(repo, label, held.forgeTokenId ?? undefined);
    },
  };
}
