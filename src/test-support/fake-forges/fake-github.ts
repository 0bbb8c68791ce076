import type { components } from "@octokit/openapi-types";
import { FakeServer, type Answer, type RecordedRequest, type Route } from "./fake-server.js";
import { applyCheckRun, checkRunBody, type FakeCheckRun } from "./fake-github-checks.js";
import { IdSequence, WORLD, type DeepPartial } from "./world.js";

/** GitHub's REST API (as GitHub Enterprise Server mounts it, under /api/v3), shaped by GitHub's OpenAPI description. */
type Schemas = components["schemas"];
type Person = { login: string; id: number };

export interface FakePull {
  state: "open" | "closed";
  merged: boolean;
  draft: boolean;
  headRepo: { id: number; fullName: string } | null;
  baseRepo: { id: number; fullName: string };
  headSha: string;
  headRef: string;
  baseRef: string;
  author: Person;
  labels: string[];
  updatedAt: string;
}

export interface FakeReviewComment {
  id: number;
  inReplyTo?: number;
  author: Person;
  body: string;
  createdAt: string;
}

/** One commit status a fake forge was sent, in the forge's own words. */
export interface FakeCommitStatus {
  repo: string;
  sha: string;
  state: string;
  context: string;
  description: string;
  targetUrl: string;
}

// GitHub's legacy `permission` folds maintain into write and triage into read.
const LEGACY: Record<string, string> = { admin: "admin", maintain: "write", write: "write", triage: "read", read: "read" };

export class FakeGitHub {
  readonly tokenOwner: Person = { ...WORLD.bot };
  /** `repo\nlogin` → role_name; a login not here is a 404, as for a user GitHub does not know. */
  readonly roles = new Map<string, string>([[`${WORLD.repo}\n${WORLD.maria.login}`, "write"]]);
  readonly pulls = new Map<string, FakePull>();
  readonly reviewComments = new Map<string, FakeReviewComment[]>();
  /** `repo#number` → reviews, oldest first. */
  readonly reviews = new Map<string, { id: number; author: Person; body: string; state: "COMMENTED" | "APPROVED" | "PENDING" }[]>();
  /** Every commit status set, oldest first, as GitHub keeps them (it shows the newest of each context). */
  readonly statuses: FakeCommitStatus[] = [];
  /** Check runs by id, as last created or updated. */
  readonly checkRuns = new Map<number, FakeCheckRun>();
  private readonly ids = new IdSequence(9_000);

  private constructor(readonly server: FakeServer) {
    const repo = { id: WORLD.repoId, fullName: WORLD.repo };
    this.pulls.set(`${WORLD.repo}#${WORLD.number}`, {
      state: "open",
      merged: false,
      draft: false,
      headRepo: repo,
      baseRepo: repo,
      headSha: WORLD.headSha,
      headRef: WORLD.headRef,
      baseRef: WORLD.baseRef,
      author: { ...WORLD.maria },
      labels: [...WORLD.labels],
      updatedAt: WORLD.updatedAt,
    });
    this.reviews.set(`${WORLD.repo}#${WORLD.number}`, [
      { id: 801, author: { ...WORLD.bot }, body: WORLD.review, state: "COMMENTED" },
      { id: 802, author: { ...WORLD.maria }, body: "Thanks, fixing.", state: "COMMENTED" },
      { id: 803, author: { ...WORLD.bot }, body: "", state: "PENDING" },
    ]);
    this.reviewComments.set(`${WORLD.repo}#${WORLD.number}`, [
      { id: 501, author: { ...WORLD.bot }, body: "This loop allocates on every call.", createdAt: WORLD.createdAt },
      { id: 502, inReplyTo: 501, author: { ...WORLD.maria }, body: "Would a pool help here?", createdAt: WORLD.updatedAt },
      { id: 601, author: { ...WORLD.maria }, body: "Unrelated note on another line.", createdAt: WORLD.updatedAt },
    ]);
  }

  static async start(prefix = "/api/v3"): Promise<FakeGitHub> {
    let fake: FakeGitHub | undefined;
    const server = await FakeServer.start(
      prefix,
      routes(() => fake!),
    );
    fake = new FakeGitHub(server);
    return fake;
  }

  pull(repo = WORLD.repo, number = WORLD.number): FakePull {
    const pull = this.pulls.get(`${repo}#${number}`);
    if (!pull) throw new Error(`no pull ${repo}#${number}`);
    return pull;
  }

  user(p: Person): DeepPartial<Schemas["simple-user"]> {
    return { login: p.login, id: p.id, node_id: `U_${p.id}`, avatar_url: "", html_url: `https://github.test/${p.login}`, type: "User", site_admin: false };
  }

  pullBody(number: number, p: FakePull): DeepPartial<Schemas["pull-request"]> {
    const repo = (r: { id: number; fullName: string }): DeepPartial<Schemas["repository"]> => ({
      id: r.id,
      node_id: `R_${r.id}`,
      name: r.fullName.split("/")[1],
      full_name: r.fullName,
      fork: r.id !== p.baseRepo.id,
      private: false,
    });
    return {
      id: 70_000 + number,
      node_id: `PR_${number}`,
      number,
      state: p.state,
      locked: false,
      title: "Faster sprockets",
      html_url: `https://github.test/${p.baseRepo.fullName}/pull/${number}`,
      body: "",
      user: this.user(p.author),
      draft: p.draft,
      merged: p.merged,
      merged_at: p.merged ? p.updatedAt : null,
      labels: p.labels.map((name, i) => ({ id: i + 1, node_id: `L_${i}`, name, color: "ededed", default: false })),
      // GitHub sends a deleted fork's head repo as null, which its OpenAPI description does not allow for.
      head: { label: `x:${p.headRef}`, ref: p.headRef, sha: p.headSha, repo: p.headRepo ? repo(p.headRepo) : (null as never) },
      base: { label: `x:${p.baseRef}`, ref: p.baseRef, sha: "0".repeat(40), repo: repo(p.baseRepo) },
      created_at: WORLD.createdAt,
      updated_at: p.updatedAt,
    };
  }

  reviewCommentBody(c: FakeReviewComment): DeepPartial<Schemas["pull-request-review-comment"]> {
    return {
      id: c.id,
      node_id: `PRRC_${c.id}`,
      pull_request_review_id: 1,
      diff_hunk: "@@ -1 +1 @@",
      path: "src/sprocket.ts",
      commit_id: WORLD.headSha,
      original_commit_id: WORLD.headSha,
      user: this.user(c.author),
      body: c.body,
      created_at: c.createdAt,
      updated_at: c.createdAt,
      author_association: "MEMBER",
      ...(c.inReplyTo !== undefined && { in_reply_to_id: c.inReplyTo }),
    };
  }

  nextId(): number {
    return this.ids.take();
  }
}

const SEG = "[^/]+";
const json = (status: number, body: unknown, headers?: Record<string, string>): Answer => ({ status, body, ...(headers && { headers }) });
const notFound = json(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
const bodyText = (r: RecordedRequest) => String((r.body as { body?: unknown }).body ?? "");

function routes(fake: () => FakeGitHub): Route[] {
  const repoPath = `^/repos/(?<owner>${SEG})/(?<repo>${SEG})`;
  const reaction = (req: RecordedRequest): Answer => {
    const content = (req.body as { content?: string }).content ?? "";
    const body: DeepPartial<Schemas["reaction"]> = {
      id: fake().nextId(),
      node_id: "REA_1",
      user: fake().user(fake().tokenOwner),
      content: content as "eyes",
      created_at: WORLD.updatedAt,
    };
    return json(201, body);
  };
  return [
    {
      method: "GET",
      path: new RegExp(`${repoPath}/collaborators/(?<username>${SEG})/permission$`),
      answer: ({ owner, repo, username }) => {
        const role = fake().roles.get(`${owner}/${repo}\n${username}`);
        if (role === undefined) return notFound;
        const body: DeepPartial<Schemas["repository-collaborator-permission"]> = {
          permission: LEGACY[role] ?? "read",
          role_name: role,
          user: { ...fake().user({ login: username!, id: 1 }), role_name: role },
        };
        return json(200, body);
      },
    },
    {
      // Open pulls only while the commit is off the default branch, as GitHub answers.
      method: "GET",
      path: new RegExp(`${repoPath}/commits/(?<sha>\\w+)/pulls$`),
      answer: ({ owner, repo, sha }) => {
        const pulls = [...fake().pulls.entries()].filter(([k, p]) => k.startsWith(`${owner}/${repo}#`) && p.headSha === sha);
        return json(
          200,
          pulls.map(([k, p]) => fake().pullBody(Number(k.split("#")[1]), p)),
        );
      },
    },
    {
      method: "GET",
      path: new RegExp(`${repoPath}/pulls/(?<number>\\d+)$`),
      answer: ({ owner, repo, number }) => {
        const pull = fake().pulls.get(`${owner}/${repo}#${number}`);
        return pull ? json(200, fake().pullBody(Number(number), pull)) : notFound;
      },
    },
    {
      method: "GET",
      path: new RegExp(`${repoPath}/pulls/(?<number>\\d+)/reviews$`),
      answer: ({ owner, repo, number }) => {
        const all = fake().reviews.get(`${owner}/${repo}#${number}`);
        if (!all) return notFound;
        const body: DeepPartial<Schemas["pull-request-review"]>[] = all.map((r) => ({
          id: r.id,
          node_id: `PRR_${r.id}`,
          user: fake().user(r.author),
          body: r.body,
          state: r.state,
          commit_id: WORLD.headSha,
          author_association: "MEMBER",
          ...(r.state !== "PENDING" && { submitted_at: WORLD.updatedAt }),
        }));
        return json(200, body);
      },
    },
    {
      method: "GET",
      path: new RegExp(`${repoPath}/pulls/(?<number>\\d+)/comments$`),
      answer: ({ owner, repo, number }, _req, url) => {
        const all = fake().reviewComments.get(`${owner}/${repo}#${number}`);
        if (!all) return notFound;
        const perPage = Math.min(100, Number(url.searchParams.get("per_page") ?? 30));
        const page = Number(url.searchParams.get("page") ?? 1);
        const last = Math.max(1, Math.ceil(all.length / perPage));
        const link = (n: number, rel: string) => `<${url.origin}${url.pathname}?per_page=${perPage}&page=${n}>; rel="${rel}"`;
        const headers: Record<string, string> = page < last ? { link: `${link(page + 1, "next")}, ${link(last, "last")}` } : {};
        return json(
          200,
          all.slice((page - 1) * perPage, page * perPage).map((c) => fake().reviewCommentBody(c)),
          headers,
        );
      },
    },
    {
      method: "POST",
      path: new RegExp(`${repoPath}/issues/(?<number>\\d+)/comments$`),
      answer: (_p, req) => {
        const id = fake().nextId();
        const body: DeepPartial<Schemas["issue-comment"]> = {
          id,
          node_id: `IC_${id}`,
          body: bodyText(req),
          user: fake().user(fake().tokenOwner),
          created_at: WORLD.updatedAt,
          updated_at: WORLD.updatedAt,
          author_association: "NONE",
        };
        return json(201, body);
      },
    },
    {
      method: "POST",
      path: new RegExp(`${repoPath}/pulls/(?<number>\\d+)/comments/(?<commentId>\\d+)/replies$`),
      answer: ({ owner, repo, number, commentId }, req) => {
        const thread = fake().reviewComments.get(`${owner}/${repo}#${number}`);
        if (!thread?.some((c) => c.id === Number(commentId))) return notFound;
        const reply: FakeReviewComment = {
          id: fake().nextId(),
          inReplyTo: Number(commentId),
          author: fake().tokenOwner,
          body: bodyText(req),
          createdAt: WORLD.updatedAt,
        };
        thread.push(reply);
        return json(201, fake().reviewCommentBody(reply));
      },
    },
    { method: "POST", path: new RegExp(`${repoPath}/issues/comments/(?<commentId>\\d+)/reactions$`), answer: (_p, req) => reaction(req) },
    { method: "POST", path: new RegExp(`${repoPath}/pulls/comments/(?<commentId>\\d+)/reactions$`), answer: (_p, req) => reaction(req) },
    {
      method: "POST",
      path: new RegExp(`${repoPath}/statuses/(?<sha>[0-9a-f]{40})$`),
      answer: ({ owner, repo, sha }, req) => {
        const b = req.body as { state?: string; context?: string; description?: string; target_url?: string };
        if (!["pending", "success", "failure", "error"].includes(b.state ?? "")) {
          return json(422, { message: "Validation Failed", errors: [{ resource: "Status", field: "state", code: "custom" }] });
        }
        const id = fake().nextId();
        const status: FakeCommitStatus = {
          repo: `${owner}/${repo}`,
          sha: sha!,
          state: b.state!,
          context: b.context ?? "default",
          description: b.description ?? "",
          targetUrl: b.target_url ?? "",
        };
        fake().statuses.push(status);
        const body: DeepPartial<Schemas["status"]> = {
          url: `https://api.github.test/repos/${owner}/${repo}/statuses/${sha}`,
          avatar_url: null,
          id,
          node_id: `SC_${id}`,
          state: status.state,
          description: status.description,
          target_url: status.targetUrl,
          context: status.context,
          created_at: WORLD.updatedAt,
          updated_at: WORLD.updatedAt,
          creator: fake().user(fake().tokenOwner),
        };
        return json(201, body);
      },
    },
    {
      // Check runs are an App's: a personal token is refused, as GitHub does.
      method: "POST",
      path: new RegExp(`${repoPath}/check-runs$`),
      answer: ({ owner, repo }, req) => {
        if (!/^Bearer ghs_/.test(String(req.headers.authorization ?? ""))) return json(403, { message: "You must authenticate via a GitHub App." });
        const b = req.body as Record<string, any>;
        if (typeof b.name !== "string" || typeof b.head_sha !== "string") return json(422, { message: "Invalid request." });
        const run: FakeCheckRun = {
          id: fake().nextId(),
          repo: `${owner}/${repo}`,
          headSha: b.head_sha,
          name: b.name,
          status: "queued",
          conclusion: null,
          detailsUrl: "",
          title: "",
          summary: "",
        };
        fake().checkRuns.set(run.id, run);
        return json(201, checkRunBody(applyCheckRun(run, b)));
      },
    },
    {
      method: "PATCH",
      path: new RegExp(`${repoPath}/check-runs/(?<id>\\d+)$`),
      answer: ({ owner, repo, id }, req) => {
        const run = fake().checkRuns.get(Number(id));
        if (!run || run.repo !== `${owner}/${repo}`) return notFound;
        return json(200, checkRunBody(applyCheckRun(run, req.body as Record<string, any>)));
      },
    },
    {
      method: "GET",
      path: /^\/user$/,
      answer: () =>
        json(200, { ...fake().user(fake().tokenOwner), name: "Review Bot", created_at: WORLD.createdAt } satisfies DeepPartial<Schemas["private-user"]>),
    },
  ];
}
