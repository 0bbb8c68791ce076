import { Type } from "typebox";
import { AnswerId, idText, parseAnswer } from "../shared/parse-answer.js";
import { deleteOrGone, type HookHttp } from "../shared/hook-http.js";
import type { SecurityToken, SecurityTokenIssuer } from "../shared/security-tokens.js";

const DAY = 24 * 60 * 60_000;

/** GitLab's group access tokens: read_api as a Developer (the least role that reads vulnerabilities), for this long. */
const GITLAB_LIFETIME_MS = 30 * DAY;
const GITLAB_RENEW_BEFORE_MS = 7 * DAY;
const GITLAB_DEVELOPER = 30;
const GroupToken = Type.Object({ id: AnswerId, token: Type.String(), expires_at: Type.String() });
const ListedToken = Type.Object({ id: AnswerId, name: Type.String(), active: Type.Optional(Type.Boolean()) });

/**
 * GitLab: a group access token on the repository's top-level group (its org), succeeded a week
 * before it expires by a new token under the same name. Not through GitLab's rotate endpoint,
 * which revokes the one before at once and so cuts off a run that holds it: the predecessor stays
 * live until the runs handed it have ended (at most its last week), and a withdrawal revokes every
 * live token of the name. https://docs.gitlab.com/api/group_access_tokens/
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
    revokeOne: async (repo, held) => {
      if (held.forgeTokenId !== null) await revoke(repo, held.forgeTokenId);
    },
  };
}
