import type { components } from "@octokit/openapi-types";
import type { ProjectHookSchema, SimpleProjectSchema } from "@gitbeaker/rest";
import type { Hook, Repository } from "gitea-js";
import type { Answer, FakeServer, RecordedRequest, Route } from "./fake-server.js";
import { IdSequence, WORLD, type DeepPartial } from "./world.js";

/** One hook as the forge holds it, the secret in the clear (a forge never shows it back). */
export interface StoredHook {
  id: number;
  url: string;
  secret: string;
  events: string[];
  active: boolean;
}

type Flavour = "github" | "gitlab" | "forgejo";
const SEG = "[^/]+";
const json = (status: number, body: unknown): Answer => ({ status, body });
const notFound = json(404, { message: "Not Found" });

/** One page of a list as the forges page it (`per_page`, Forgejo's `limit`, and `page`), with a `Link` to the next. */
function paged(items: unknown[], url: URL): Answer {
  const size = Number(url.searchParams.get("per_page") ?? url.searchParams.get("limit") ?? 30);
  const page = Number(url.searchParams.get("page") ?? 1);
  const next = new URL(url);
  next.searchParams.set("page", String(page + 1));
  const more = page * size < items.length;
  return { status: 200, body: items.slice((page - 1) * size, page * size), ...(more && { headers: { link: `<${next.href}>; rel="next"` } }) };
}

/**
 * Repository hooks and the repository list of one fake forge, served on its server at the
 * forge's real paths: GitHub and Forgejo `/repos/{owner}/{repo}/hooks`, GitLab `/projects/:id/hooks`.
 */
export class FakeHooks {
  /** repo path → its hooks. */
  readonly hooks = new Map<string, StoredHook[]>([[WORLD.repo as string, []]]);
  private readonly ids = new IdSequence(4_000);

  private constructor(
    readonly server: FakeServer,
    private readonly flavour: Flavour,
  ) {}

  static mount(server: FakeServer, flavour: Flavour): FakeHooks {
    const fake = new FakeHooks(server, flavour);
    server.mount(fake.routes());
    return fake;
  }

  of(repo: string = WORLD.repo): StoredHook[] {
    return this.hooks.get(repo) ?? [];
  }

  /** Every request that changed a hook. */
  writes(): RecordedRequest[] {
    return this.server.requests.filter((r) => r.method !== "GET" && /\/hooks(\/|$|\?)/.test(r.path));
  }

  private routes(): Route[] {
    const base = this.flavour === "gitlab" ? `^/projects/(?<repo>${SEG})/hooks` : `^/repos/(?<owner>${SEG})/(?<name>${SEG})/hooks`;
    const repoOf = (p: Record<string, string>) => (this.flavour === "gitlab" ? p.repo! : `${p.owner}/${p.name}`);
    const find = (p: Record<string, string>) => this.of(repoOf(p)).find((h) => h.id === Number(p.hookId));
    return [
      {
        method: "GET",
        path: new RegExp(`${base}$`),
        answer: (p, _r, url) =>
          this.hooks.has(repoOf(p))
            ? paged(
                this.of(repoOf(p)).map((h) => this.body(h)),
                url,
              )
            : notFound,
      },
      {
        method: "POST",
        path: new RegExp(`${base}$`),
        answer: (p, req) => {
          const list = this.hooks.get(repoOf(p));
          if (!list) return notFound;
          const hook: StoredHook = { id: this.ids.take(), url: "", secret: "", events: [], active: true };
          this.apply(hook, req.body);
          list.push(hook);
          return json(201, this.body(hook));
        },
      },
      {
        method: this.flavour === "gitlab" ? "PUT" : "PATCH",
        path: new RegExp(`${base}/(?<hookId>\\d+)$`),
        answer: (p, req) => {
          const hook = find(p);
          if (!hook) return notFound;
          this.apply(hook, req.body);
          return json(200, this.body(hook));
        },
      },
      {
        method: "DELETE",
        path: new RegExp(`${base}/(?<hookId>\\d+)$`),
        answer: (p) => {
          const list = this.of(repoOf(p));
          const i = list.findIndex((h) => h.id === Number(p.hookId));
          if (i < 0) return notFound;
          list.splice(i, 1);
          return { status: 204 };
        },
      },
      {
        method: "GET",
        path: this.flavour === "gitlab" ? /^\/projects$/ : /^\/user\/repos$/,
        answer: (_p, _r, url) =>
          paged(
            [...this.hooks.keys()].map((r, i) => this.repoBody(r, i)),
            url,
          ),
      },
    ];
  }

  private apply(hook: StoredHook, body: unknown): void {
    const b = body as { url?: string; token?: string; events?: string[]; active?: boolean; config?: { url?: string; secret?: string } };
    if (this.flavour === "gitlab") {
      hook.url = b.url ?? hook.url;
      hook.secret = b.token ?? hook.secret;
      hook.events = Object.entries(b as Record<string, unknown>)
        .filter(([k, v]) => k.endsWith("_events") && v === true)
        .map(([k]) => k);
      return;
    }
    hook.url = b.config?.url ?? hook.url;
    hook.secret = b.config?.secret ?? hook.secret;
    hook.events = b.events ?? hook.events;
    hook.active = b.active ?? hook.active;
  }

  private body(h: StoredHook): unknown {
    if (this.flavour === "github") {
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
    if (this.flavour === "gitlab") {
      const body: DeepPartial<ProjectHookSchema> = { id: h.id, url: h.url, created_at: WORLD.createdAt };
      return { ...body, project_id: WORLD.repoId, ...Object.fromEntries(h.events.map((e) => [e, true])) };
    }
    const body: DeepPartial<Hook> = { id: h.id, type: "forgejo", active: h.active, events: h.events, config: { url: h.url, content_type: "json" } };
    return body;
  }

  private repoBody(repo: string, i: number): unknown {
    if (this.flavour === "gitlab") return { id: WORLD.repoId + i, path_with_namespace: repo } satisfies DeepPartial<SimpleProjectSchema>;
    const body: DeepPartial<Repository> & DeepPartial<components["schemas"]["repository"]> = {
      id: WORLD.repoId + i,
      full_name: repo,
      name: repo.split("/")[1],
      permissions: { admin: true, push: true, pull: true },
    };
    return body;
  }
}
