import { randomUUID } from "node:crypto";
import { deliveryBody, type Flavour, gitlabTestPush, hookBody, repoBody, type StoredHook } from "./fake-hook-answers.js";
import type { Answer, FakeServer, RecordedRequest, Route } from "./fake-server.js";
import { IdSequence, WORLD } from "./world.js";

export type { StoredHook } from "./fake-hook-answers.js";

/** Where GitLab's hook test delivers (a test wires it to the service), and the answer it got. */
export type HookReceiver = (url: string, headers: Record<string, string>, body: string) => Promise<{ status: number; body: string }>;

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
  /** Where GitLab's hook test delivers; unset, the test fails as a hook GitLab cannot reach. */
  receiver: HookReceiver | undefined;
  private readonly ids = new IdSequence(4_000);
  private readonly deliveryIds = new IdSequence(90_000);

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

  /** The forge stops calling the hook: GitHub and Forgejo switch it off; GitLab holds it back (until a time, or for good). */
  disable(hook: StoredHook, until?: string): void {
    if (this.flavour !== "gitlab") hook.active = false;
    else
      Object.assign(
        hook,
        until === undefined ? { alertStatus: "disabled", disabledUntil: null } : { alertStatus: "temporarily_disabled", disabledUntil: until },
      );
  }

  /** GitHub records deliveries answered with these statuses (0: no answer), oldest first, `at` apart by a minute. */
  delivered(hook: StoredHook, statuses: number[], at: number = Date.UTC(2026, 10, 21, 11, 0, 0)): void {
    statuses.forEach((statusCode, i) => {
      hook.deliveries.unshift({ id: this.deliveryIds.take(), statusCode, deliveredAt: new Date(at + i * 60_000).toISOString() });
    });
  }

  private routes(): Route[] {
    const base = this.flavour === "gitlab" ? `^/projects/(?<repo>${SEG})/hooks` : `^/repos/(?<owner>${SEG})/(?<name>${SEG})/hooks`;
    const one = `${base}/(?<hookId>\\d+)`;
    const repoOf = (p: Record<string, string>) => (this.flavour === "gitlab" ? p.repo! : `${p.owner}/${p.name}`);
    const find = (p: Record<string, string>) => this.of(repoOf(p)).find((h) => h.id === Number(p.hookId));
    const routes: Route[] = [
      {
        method: "GET",
        path: new RegExp(`${base}$`),
        answer: (p, _r, url) =>
          this.hooks.has(repoOf(p))
            ? paged(
                this.of(repoOf(p)).map((h) => hookBody(this.flavour, h)),
                url,
              )
            : notFound,
      },
      {
        method: "GET",
        path: new RegExp(`${one}$`),
        answer: (p) => {
          const hook = find(p);
          return hook ? json(200, hookBody(this.flavour, hook)) : notFound;
        },
      },
      {
        method: "POST",
        path: new RegExp(`${base}$`),
        answer: (p, req) => {
          const list = this.hooks.get(repoOf(p));
          if (!list) return notFound;
          const hook: StoredHook = {
            id: this.ids.take(),
            url: "",
            secret: "",
            events: [],
            active: true,
            alertStatus: "executable",
            disabledUntil: null,
            deliveries: [],
          };
          this.apply(hook, req.body);
          list.push(hook);
          return json(201, hookBody(this.flavour, hook));
        },
      },
      {
        method: this.flavour === "gitlab" ? "PUT" : "PATCH",
        path: new RegExp(`${one}$`),
        answer: (p, req) => {
          const hook = find(p);
          if (!hook) return notFound;
          this.apply(hook, req.body);
          return json(200, hookBody(this.flavour, hook));
        },
      },
      {
        method: "DELETE",
        path: new RegExp(`${one}$`),
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
            [...this.hooks.keys()].map((r, i) => repoBody(this.flavour, r, i)),
            url,
          ),
      },
    ];
    if (this.flavour === "github") {
      routes.push({
        method: "GET",
        path: new RegExp(`${one}/deliveries$`),
        answer: (p, _r, url) => {
          const hook = find(p);
          const size = Number(url.searchParams.get("per_page") ?? 30);
          return hook ? json(200, hook.deliveries.slice(0, size).map(deliveryBody)) : notFound;
        },
      });
    }
    if (this.flavour === "gitlab") {
      routes.push({ method: "POST", path: new RegExp(`${one}/test/(?<trigger>[a-z_]+)$`), answer: (p) => this.test(repoOf(p), find(p), p.trigger!) });
    }
    return routes;
  }

  /** GitLab's hook test: delivers at once, even to a disabled hook, and a 2xx answer enables it again. */
  private async test(repo: string, hook: StoredHook | undefined, trigger: string): Promise<Answer> {
    if (!hook) return notFound;
    if (trigger !== "push_events") return json(422, { message: "Ensure the project has merge requests." });
    if (!this.receiver) return json(422, { message: "Failed to open TCP connection" });
    const answer = await this.receiver(
      hook.url,
      {
        "content-type": "application/json",
        "user-agent": "GitLab/17.8.0",
        "x-gitlab-event": "Push Hook",
        "x-gitlab-token": hook.secret,
        "x-gitlab-event-uuid": randomUUID(),
        "idempotency-key": randomUUID(),
      },
      JSON.stringify(gitlabTestPush(repo)),
    );
    if (answer.status < 200 || answer.status >= 300) return json(422, { message: answer.body });
    Object.assign(hook, { alertStatus: "executable", disabledUntil: null });
    return json(201, { message: "201 Created" });
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
}
