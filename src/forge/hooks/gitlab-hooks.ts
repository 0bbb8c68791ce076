import { Type } from "typebox";
import { AnswerId, idText, parseAnswer } from "../parse-answer.js";
import type { ForgeHooks, HookSpec } from "./forge-hooks.js";
import { deleteOrGone, type HookHttp } from "./hook-http.js";

const Hook = Type.Object({ id: AnswerId, url: Type.String() });
const Project = Type.Object({ path_with_namespace: Type.String() });

const hookOf = (data: unknown) => {
  const h = parseAnswer(Hook, data, "a project hook");
  return { id: idText(h.id), url: h.url };
};

// https://docs.gitlab.com/api/project_webhooks/: the project is named by its URL-encoded full path.
export function gitlabHooks(http: HookHttp): ForgeHooks {
  const hooks = (repo: string) => `projects/${encodeURIComponent(repo)}/hooks`;
  // forge_a handles merge requests and notes (and issue labels); GitLab turns push events on unless told.
  const body = (spec: HookSpec) => ({
    url: spec.url,
    token: spec.secret,
    push_events: false,
    merge_requests_events: true,
    note_events: true,
    issues_events: true,
    enable_ssl_verification: true,
  });
  return {
    listHooks: async (repo) => (await http.all(`${hooks(repo)}?per_page=100`)).map(hookOf),
    createHook: async (repo, spec) => hookOf(await http.call("POST", hooks(repo), body(spec))),
    updateHook: async (repo, id, spec) => hookOf(await http.call("PUT", `${hooks(repo)}/${encodeURIComponent(id)}`, body(spec))),
    deleteHook: (repo, id) => deleteOrGone(() => http.call("DELETE", `${hooks(repo)}/${encodeURIComponent(id)}`)),
    listRepos: async () => {
      // Maintainer (40) is the least access that may manage a project's hooks.
      const projects = parseAnswer(Type.Array(Project), await http.all("projects?min_access_level=40&simple=true&per_page=100&order_by=path"), "projects");
      return projects.map((p) => ({ repo: p.path_with_namespace }));
    },
  };
}
