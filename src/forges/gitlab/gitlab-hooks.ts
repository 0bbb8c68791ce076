import { Type } from "typebox";
import { AnswerId, idText, parseAnswer } from "../shared/parse-answer.js";
import type { ForgeHooks, HookSpec, HookState } from "../shared/forge-hooks.js";
import { deleteOrGone, type HookHttp, readOrGone } from "../shared/hook-http.js";

/** The events forge_a's lanes handle (merge requests, notes, issue labels, CI gates), as GitLab's hook fields name them. */
export const GITLAB_HOOK_EVENTS = ["merge_requests_events", "note_events", "issues_events", "pipeline_events"];

const Hook = Type.Object({
  id: AnswerId,
  url: Type.String(),
  alert_status: Type.Optional(Type.String()),
  disabled_until: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
const Project = Type.Object({ path_with_namespace: Type.String() });

const hookOf = (data: unknown): HookState => {
  const h = parseAnswer(Hook, data, "a project hook");
  // A hook has no on/off switch of its own: each subscription is a `*_events` field.
  const events = Object.entries(data as Record<string, unknown>)
    .filter(([k, v]) => k.endsWith("_events") && v === true)
    .map(([k]) => k);
  // alert_status came with GitLab 15.2; a GitLab without it does not disable hooks for failing.
  const active = h.alert_status === undefined || h.alert_status === "executable";
  const inactiveWhy = inactiveWhyOf(h.alert_status, h.disabled_until);
  return { id: idText(h.id), url: h.url, active, events, alertStatus: h.alert_status, disabledUntil: h.disabled_until, ...(inactiveWhy && { inactiveWhy }) };
};

/** GitLab stops calling a hook whose deliveries keep failing: for a while, then until it is enabled again. */
function inactiveWhyOf(alertStatus: string | undefined, disabledUntil: string | null | undefined): string | undefined {
  if (alertStatus === "temporarily_disabled") return `GitLab holds the hook back after failing deliveries until ${disabledUntil ?? "a later time"}`;
  if (alertStatus === "disabled") return "GitLab disabled the hook after failing deliveries";
  return undefined;
}

// https://docs.gitlab.com/api/project_webhooks/: the project is named by its URL-encoded full path.
export function gitlabHooks(http: HookHttp): ForgeHooks {
  const hooks = (repo: string) => `projects/${encodeURIComponent(repo)}/hooks`;
  const hook = (repo: string, id: string) => `${hooks(repo)}/${encodeURIComponent(id)}`;
  // GitLab turns push events on unless told.
  const body = (spec: HookSpec) => ({
    url: spec.url,
    token: spec.secret,
    push_events: false,
    ...Object.fromEntries(GITLAB_HOOK_EVENTS.map((e) => [e, true])),
    enable_ssl_verification: true,
  });
  return {
    neededEvents: GITLAB_HOOK_EVENTS,
    listHooks: async (repo) => (await http.all(`${hooks(repo)}?per_page=100`)).map(hookOf),
    getHook: async (repo, id) => readOrGone(async () => hookOf(await http.call("GET", hook(repo, id)))),
    createHook: async (repo, spec) => hookOf(await http.call("POST", hooks(repo), body(spec))),
    updateHook: async (repo, id, spec) => hookOf(await http.call("PUT", hook(repo, id), body(spec))),
    // https://docs.gitlab.com/api/project_webhooks/#trigger-a-test-project-webhook: a test push needs
    // only a commit to exist (no merge request or note), and the intake files it as filtered.
    enableHook: async (repo, id) => {
      await http.call("POST", `${hook(repo, id)}/test/push_events`);
    },
    deleteHook: (repo, id) => deleteOrGone(() => http.call("DELETE", hook(repo, id))),
    listRepos: async () => {
      // Maintainer (40) is the least access that may manage a project's hooks.
      const projects = parseAnswer(Type.Array(Project), await http.all("projects?min_access_level=40&simple=true&per_page=100&order_by=path"), "projects");
      return projects.map((p) => ({ repo: p.path_with_namespace }));
    },
  };
}
