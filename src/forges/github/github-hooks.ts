import { type Static, Type } from "typebox";
import { ownerAndName } from "../shared/forge-module.js";
import { AnswerId, idText, parseAnswer } from "../shared/parse-answer.js";
import type { ForgeHooks, HookDelivery, HookSpec, HookState } from "../shared/forge-hooks.js";
import { deleteOrGone, encodedPath, type HookHttp, readOrGone } from "../shared/hook-http.js";

/** The events forge_b's lanes handle (reviews, commands, review threads, issue labels, CI gates). */
export const GITHUB_HOOK_EVENTS = ["pull_request", "issue_comment", "pull_request_review_comment", "issues", "check_run", "check_suite", "status"];

const Hook = Type.Object({
  id: AnswerId,
  active: Type.Optional(Type.Boolean()),
  events: Type.Optional(Type.Array(Type.String())),
  config: Type.Object({ url: Type.Optional(Type.String()) }),
});
const Delivery = Type.Object({
  id: AnswerId,
  guid: Type.String(),
  delivered_at: Type.String(),
  redelivery: Type.Boolean(),
  duration: Type.Number(),
  status: Type.String(),
  status_code: Type.Number(),
  event: Type.String(),
  action: Type.Union([Type.String(), Type.Null()]),
});
const Repo = Type.Object({ full_name: Type.String(), permissions: Type.Optional(Type.Object({ admin: Type.Boolean() })) });

const hookOf = (data: unknown): HookState => {
  const h = parseAnswer(Hook, data, "a repository hook");
  // `*` subscribes a hook to every event.
  const everyEvent = h.events?.includes("*") === true;
  return { id: idText(h.id), url: h.config.url ?? "", active: h.active ?? true, events: h.events, ...(everyEvent && { everyEvent }) };
};

const deliveryOf = (d: Static<typeof Delivery>): HookDelivery => ({
  id: idText(d.id),
  guid: d.guid,
  deliveredAt: d.delivered_at,
  redelivery: d.redelivery,
  duration: d.duration,
  status: d.status,
  statusCode: d.status_code,
  event: d.event,
  action: d.action,
});

// https://docs.github.com/en/rest/repos/webhooks: one page of 100 holds every hook (GitHub allows 20 per event).
export function githubHooks(http: HookHttp, options: { installation?: boolean } = {}): ForgeHooks {
  const hooks = (repo: string) => {
    ownerAndName(repo);
    return `repos/${encodedPath(repo)}/hooks`;
  };
  const hook = (repo: string, id: string) => `${hooks(repo)}/${encodeURIComponent(id)}`;
  const body = (spec: HookSpec) => ({
    active: true,
    events: GITHUB_HOOK_EVENTS,
    config: { url: spec.url, content_type: "json", secret: spec.secret, insecure_ssl: "0" },
  });
  return {
    neededEvents: GITHUB_HOOK_EVENTS,
    listHooks: async (repo) => (await http.all(`${hooks(repo)}?per_page=100`)).map(hookOf),
    getHook: async (repo, id) => readOrGone(async () => hookOf(await http.call("GET", hook(repo, id)))),
    // https://docs.github.com/en/rest/repos/webhooks#list-deliveries-for-a-repository-webhook (newest first, at most 100).
    recentDeliveries: async (repo, id, count) => {
      const page = await http.call("GET", `${hook(repo, id)}/deliveries?per_page=${Math.min(count, 100)}`);
      return parseAnswer(Type.Array(Delivery), page, "a hook's deliveries").map(deliveryOf);
    },
    createHook: async (repo, spec) => hookOf(await http.call("POST", hooks(repo), { name: "web", ...body(spec) })),
    updateHook: async (repo, id, spec) => hookOf(await http.call("PATCH", hook(repo, id), body(spec))),
    deleteHook: (repo, id) => deleteOrGone(() => http.call("DELETE", hook(repo, id))),
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
