import { traced, tracingOn } from "../../core/tracing.js";
import type { ForgeResult } from "./forge-client.js";

/**
 * The words of the forges' REST paths (GitHub, GitLab, Forgejo/Gitea): a path segment among them is
 * kept in a span's route, any other (an owner, a repository, a login, a number, a sha, a
 * URL-encoded project) becomes `{}`, so no name or value of a tenant's reaches a trace.
 */
const PATH_WORDS = new Set([
  "access_tokens",
  "all",
  "api",
  "app",
  "approvals",
  "award_emoji",
  "branches",
  "check-runs",
  "check-suites",
  "collaborators",
  "comments",
  "commits",
  "contents",
  "discussions",
  "git",
  "graphql",
  "groups",
  "hooks",
  "installation",
  "installations",
  "issues",
  "labels",
  "members",
  "merge_requests",
  "notes",
  "orgs",
  "permission",
  "permissions",
  "personal_access_tokens",
  "pull",
  "pulls",
  "projects",
  "reactions",
  "repos",
  "repository",
  "requested_reviewers",
  "reviews",
  "revoke",
  "self",
  "status",
  "statuses",
  "token",
  "tokens",
  "user",
  "users",
  "v1",
  "v3",
  "v4",
  "version",
]);

/** A forge URL's path as a route: its API words kept, every other segment `{}`; never the query. */
export function routeTemplate(url: URL): string {
  return url.pathname
    .split("/")
    .map((segment) => (segment === "" || PATH_WORDS.has(segment) ? segment : "{}"))
    .join("/");
}

/**
 * One HTTP request to a forge as a client span (`GET /repos/{}/{}/pulls/{}`): the method, the
 * host, the route and the status; failed on a 4xx or 5xx answer or when no answer came. While
 * tracing is off, the request and nothing more.
 */
export function forgeRequestSpan(url: URL, method: string, send: () => Promise<Response>): Promise<Response> {
  if (!tracingOn()) return send();
  const route = routeTemplate(url);
  const attributes = { "http.request.method": method, "server.address": url.hostname, "url.template": route };
  return traced(
    `${method} ${route}`,
    attributes,
    async (span) => {
      const response = await send();
      span.set({ "http.response.status_code": response.status });
      if (response.status >= 400) span.fail(`answered ${response.status}`);
      return response;
    },
    "client",
  );
}

/** A forge client's operation as a span (`forge.pullRequest`): the provider, the host and the outcome's error code. */
export function forgeCallSpan<T>(operation: string, provider: string, apiRoot: URL, call: () => Promise<ForgeResult<T>>): Promise<ForgeResult<T>> {
  if (!tracingOn()) return call();
  return traced(`forge.${operation}`, { "forge.provider": provider, "server.address": apiRoot.hostname }, async (span) => {
    const result = await call();
    if (!result.ok) {
      span.set({ "error.type": result.error.code });
      span.fail(result.error.code);
    }
    return result;
  });
}
