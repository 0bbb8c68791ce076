import { Type } from "typebox";
import { ownerAndName } from "../forge-module.js";
import { AnswerId, idText, parseAnswer } from "../parse-answer.js";
import type { ForgeHooks, HookSpec } from "./forge-hooks.js";
import { deleteOrGone, encodedPath, type HookHttp } from "./hook-http.js";

/** The events forge_b's lanes handle (reviews, commands, review threads, issue labels). */
export const GITHUB_HOOK_EVENTS = ["pull_request", "issue_comment", "pull_request_review_comment", "issues"];

const Hook = Type.Object({ id: AnswerId, config: Type.Object({ url: Type.Optional(Type.String()) }) });
const Repo = Type.Object({ full_name: Type.String(), permissions: Type.Optional(Type.Object({ admin: Type.Boolean() })) });

const hookOf = (data: unknown) => {
  const h = parseAnswer(Hook, data, "a repository hook");
  return { id: idText(h.id), url: h.config.url ?? "" };
};

// https://docs.github.com/en/rest/repos/webhooks: one page of 100 holds every hook (GitHub allows 20 per event).
export function githubHooks(http: HookHttp, options: { installation?: boolean } = {}): ForgeHooks {
  const hooks = (repo: string) => {
    ownerAndName(repo);
    return `repos/${encodedPath(repo)}/hooks`;
  };
  const body = (spec: HookSpec) => ({
    active: true,
    events: GITHUB_HOOK_EVENTS,
    config: { url: spec.url, content_type: "json", secret: spec.secret, insecure_ssl: "0" },
  });
  return {
    listHooks: async (repo) => (await http.all(`${hooks(repo)}?per_page=100`)).map(hookOf),
    createHook: async (repo, spec) => hookOf(await http.call("POST", hooks(repo), { name: "web", ...body(spec) })),
    updateHook: async (repo, id, spec) => hookOf(await http.call("PATCH", `${hooks(repo)}/${encodeURIComponent(id)}`, body(spec))),
    deleteHook: (repo, id) => deleteOrGone(() => http.call("DELETE", `${hooks(repo)}/${encodeURIComponent(id)}`)),
    listRepos: async () => {
      // An installation's token lists the repositories it was granted; a user's, those it can reach.
      const repos = options.installation
        ? parseAnswer(Type.Array(Repo), await http.all("installation/repositories?per_page=100", "repositories"), "repositories")
        : parseAnswer(Type.Array(Repo), await http.all("user/repos?per_page=100&sort=full_name"), "repositories");
      // Hooks need admin on the repository.
      return repos.filter((r) => r.permissions?.admin !== false).map((r) => ({ repo: r.full_name }));
    },
  };
}
