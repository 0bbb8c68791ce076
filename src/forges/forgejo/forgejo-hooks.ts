import { Type } from "typebox";
import { ownerAndName } from "../shared/forge-module.js";
import { AnswerId, idText, parseAnswer } from "../shared/parse-answer.js";
import type { ForgeHooks, HookSpec, HookState } from "../shared/forge-hooks.js";
import { deleteOrGone, encodedPath, type HookHttp, readOrGone } from "../shared/hook-http.js";

/** The events forge_c's lanes handle, in Gitea's hook event names. */
export const FORGEJO_HOOK_EVENTS = [
  "pull_request",
  "pull_request_sync",
  "pull_request_label",
  "pull_request_review_request",
  "issues",
  "issue_label",
  "issue_comment",
  // Commit statuses: the CI gate (Forgejo 10 and Gitea 1.23 send them).
  "status",
];

const Hook = Type.Object({
  id: AnswerId,
  active: Type.Optional(Type.Boolean()),
  events: Type.Optional(Type.Array(Type.String())),
  config: Type.Object({ url: Type.Optional(Type.String()) }),
});
const Repo = Type.Object({ full_name: Type.String(), permissions: Type.Optional(Type.Object({ admin: Type.Boolean() })) });

const hookOf = (data: unknown): HookState => {
  const h = parseAnswer(Hook, data, "a repository hook");
  return { id: idText(h.id), url: h.config.url ?? "", active: h.active ?? true, events: h.events };
};

// https://forgejo.org/docs/latest/user/api-usage/ (Gitea's /repos/{owner}/{repo}/hooks).
export function forgejoHooks(http: HookHttp): ForgeHooks {
  const hooks = (repo: string) => {
    ownerAndName(repo);
    return `repos/${encodedPath(repo)}/hooks`;
  };
  const hook = (repo: string, id: string) => `${hooks(repo)}/${encodeURIComponent(id)}`;
  const config = (spec: HookSpec) => ({ url: spec.url, content_type: "json", secret: spec.secret });
  return {
    neededEvents: FORGEJO_HOOK_EVENTS,
    listHooks: async (repo) => (await http.all(`${hooks(repo)}?limit=50`)).map(hookOf),
    getHook: async (repo, id) => readOrGone(async () => hookOf(await http.call("GET", hook(repo, id)))),
    createHook: async (repo, spec) =>
      hookOf(await http.call("POST", hooks(repo), { type: "forgejo", active: true, events: FORGEJO_HOOK_EVENTS, config: config(spec) })),
    updateHook: async (repo, id, spec) => hookOf(await http.call("PATCH", hook(repo, id), { active: true, events: FORGEJO_HOOK_EVENTS, config: config(spec) })),
    deleteHook: (repo, id) => deleteOrGone(() => http.call("DELETE", hook(repo, id))),
    listRepos: async () => {
      const repos = parseAnswer(Type.Array(Repo), await http.all("user/repos?limit=50"), "repositories");
      return repos.filter((r) => r.permissions?.admin !== false).map((r) => ({ repo: r.full_name }));
    },
  };
}
