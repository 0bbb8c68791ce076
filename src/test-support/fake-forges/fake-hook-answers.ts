import type { components } from "@octokit/openapi-types";
import type { ProjectHookSchema, SimpleProjectSchema, WebhookPushEventSchema } from "@gitbeaker/rest";
import type { Hook, Repository } from "gitea-js";
import { WORLD, type DeepPartial } from "./world.js";

export type Flavour = "github" | "gitlab" | "forgejo";

/** One hook as the forge holds it, the secret in the clear (a forge never shows it back). */
export interface StoredHook {
  id: number;
  url: string;
  secret: string;
  events: string[];
  /** GitHub's and Forgejo's switch. */
  active: boolean;
  /** GitLab's failure state, kept apart from the hook's fields (an edit leaves it as it is). */
  alertStatus: "executable" | "disabled" | "temporarily_disabled";
  disabledUntil: string | null;
  /** GitHub's record of the hook's deliveries, newest first. */
  deliveries: StoredDelivery[];
}

export interface StoredDelivery {
  id: number;
  statusCode: number;
  deliveredAt: string;
}

/** GitLab's project hook fields that subscribe to events (the ones its API answers with). */
const GITLAB_EVENT_FIELDS = [
  "push_events",
  "tag_push_events",
  "merge_requests_events",
  "note_events",
  "issues_events",
  "confidential_issues_events",
  "confidential_note_events",
  "job_events",
  "pipeline_events",
  "wiki_page_events",
  "deployment_events",
  "releases_events",
] as const;

/** A hook as each forge's API answers it. */
export function hookBody(flavour: Flavour, h: StoredHook): unknown {
  if (flavour === "github") {
    const body: DeepPartial<components["schemas"]["hook"]> = {
      type: "Repository",
      id: h.id,
      name: "web",
      active: h.active,
      events: h.events,
      config: { url: h.url, content_type: "json", insecure_ssl: "0", ...(h.secret && { secret: "********" }) },
      created_at: WORLD.createdAt,
      updated_at: WORLD.updatedAt,
    };
    return body;
  }
  if (flavour === "gitlab") {
    const body: DeepPartial<ProjectHookSchema> = {
      id: h.id,
      url: h.url,
      created_at: WORLD.createdAt,
      enable_ssl_verification: true,
      alert_status: h.alertStatus,
    };
    const events = Object.fromEntries(GITLAB_EVENT_FIELDS.map((e) => [e, h.events.includes(e)]));
    // GitLab answers `disabled_until: null` for a hook it is not holding back (gitbeaker types it without the null).
    return { ...body, disabled_until: h.disabledUntil, project_id: WORLD.repoId, ...events };
  }
  const body: DeepPartial<Hook> = { id: h.id, type: "forgejo", active: h.active, events: h.events, config: { url: h.url, content_type: "json" } };
  return body;
}

/** GitHub's delivery list item (https://docs.github.com/en/rest/repos/webhooks#list-deliveries-for-a-repository-webhook). */
export function deliveryBody(d: StoredDelivery): components["schemas"]["hook-delivery-item"] {
  const ok = d.statusCode >= 200 && d.statusCode < 300;
  return {
    id: d.id,
    guid: `0b989ba4-242f-11e5-81e1-${String(d.id).padStart(12, "0")}`,
    delivered_at: d.deliveredAt,
    redelivery: false,
    duration: 0.27,
    status: ok ? "OK" : d.statusCode === 0 ? "failed to connect" : `Invalid HTTP Response: ${d.statusCode}`,
    status_code: d.statusCode,
    event: "pull_request",
    action: "opened",
    installation_id: null,
    repository_id: WORLD.repoId,
  };
}

export function repoBody(flavour: Flavour, repo: string, i: number): unknown {
  if (flavour === "gitlab") return { id: WORLD.repoId + i, path_with_namespace: repo } satisfies DeepPartial<SimpleProjectSchema>;
  const body: DeepPartial<Repository> & DeepPartial<components["schemas"]["repository"]> = {
    id: WORLD.repoId + i,
    full_name: repo,
    name: repo.split("/")[1],
    permissions: { admin: true, push: true, pull: true },
  };
  return body;
}

/** The sample push GitLab's hook test sends (https://docs.gitlab.com/user/project/integrations/webhook_events/#push-events). */
export function gitlabTestPush(repo: string): DeepPartial<WebhookPushEventSchema> {
  const name = repo.split("/").at(-1);
  return {
    object_kind: "push",
    event_name: "push",
    before: "95790bf891e76fee5e1747ab589903a6a1f80f22",
    after: WORLD.headSha,
    ref: `refs/heads/${WORLD.baseRef}`,
    ref_protected: true,
    checkout_sha: WORLD.headSha,
    user_id: WORLD.maria.id,
    user_name: "Maria",
    user_username: WORLD.maria.login,
    project_id: WORLD.repoId,
    project: { id: WORLD.repoId, name, path_with_namespace: repo, default_branch: WORLD.baseRef },
    repository: { name, homepage: `https://gitlab.example/${repo}` },
    commits: [],
    total_commits_count: 0,
  };
}
