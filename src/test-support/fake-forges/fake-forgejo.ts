import type { CommitStatus, Comment, PullRequest, PullReview, Reaction, RepoCollaboratorPermission, Repository, User } from "gitea-js";
import { FakeServer, type Answer, type RecordedRequest, type Route } from "./fake-server.js";
import type { FakeCommitStatus } from "./fake-github.js";
import { IdSequence, WORLD, type DeepPartial } from "./world.js";

/** Forgejo's (Gitea's) REST API under /api/v1, shaped by Gitea's swagger (as gitea-js's generated types carry it). */
type Person = { login: string; id: number };

export interface FakeForgejoPull {
  state: "open" | "closed";
  merged: boolean;
  /** undefined: an instance from before the draft field, which marks drafts by title. */
  draft: boolean | undefined;
  title: string;
  headRepo: { id: number; fullName: string } | null;
  baseRepo: { id: number; fullName: string };
  headSha: string;
  headRef: string;
  baseRef: string;
  author: Person;
  labels: string[];
  updatedAt: string;
}

export class FakeForgejo {
  readonly tokenOwner: Person = { ...WORLD.bot };
  /** Forgejo answers others' permissions only to a repository admin. */
  tokenIsRepoAdmin = true;
  readonly users = new Map<string, Person>([
    [WORLD.maria.login, { ...WORLD.maria }],
    [WORLD.bot.login, { ...WORLD.bot }],
  ]);
  /** `repo\nlogin` → access mode (none, read, write, admin, owner); a known user not here has none. */
  readonly access = new Map<string, string>([[`${WORLD.repo}\n${WORLD.maria.login}`, "write"]]);
  readonly pulls = new Map<string, FakeForgejoPull>();
  /** `repo#number` → reviews, oldest first. */
  readonly reviews = new Map<string, { id: number; author: Person; body: string; state: "COMMENT" | "APPROVED" | "PENDING" }[]>();
  /** Every commit status set, oldest first. */
  readonly statuses: FakeCommitStatus[] = [];
  private readonly ids = new IdSequence(9_000);

  private constructor(readonly server: FakeServer) {
    const repo = { id: WORLD.repoId, fullName: WORLD.repo };
    this.reviews.set(`${WORLD.repo}#${WORLD.number}`, [
      { id: 801, author: { ...WORLD.bot }, body: WORLD.review, state: "COMMENT" },
      { id: 802, author: { ...WORLD.maria }, body: "Thanks, fixing.", state: "COMMENT" },
    ]);
    this.pulls.set(`${WORLD.repo}#${WORLD.number}`, {
      state: "open",
      merged: false,
      draft: false,
      title: "Faster sprockets",
      headRepo: repo,
      baseRepo: repo,
      headSha: WORLD.headSha,
      headRef: WORLD.headRef,
      baseRef: WORLD.baseRef,
      author: { ...WORLD.maria },
      labels: [...WORLD.labels],
      updatedAt: WORLD.updatedAt,
    });
  }

  static async start(prefix = "/api/v1"): Promise<FakeForgejo> {
    let fake: FakeForgejo | undefined;
    const server = await FakeServer.start(
      prefix,
      routes(() => fake!),
    );
    fake = new FakeForgejo(server);
    return fake;
  }

  pull(repo = WORLD.repo, number = WORLD.number): FakeForgejoPull {
    const pull = this.pulls.get(`${repo}#${number}`);
    if (!pull) throw new Error(`no pull ${repo}#${number}`);
    return pull;
  }

  user(p: Person): DeepPartial<User> {
    return { id: p.id, login: p.login, login_name: "", full_name: p.login, email: `${p.login}@noreply.forgejo.test`, avatar_url: "", is_admin: false };
  }

  repository(r: { id: number; fullName: string }): DeepPartial<Repository> {
    const [owner, name] = r.fullName.split("/");
    return { id: r.id, name, full_name: r.fullName, owner: this.user({ login: owner!, id: r.id + 1 }), fork: false, private: true };
  }

  pullBody(number: number, p: FakeForgejoPull): DeepPartial<PullRequest> {
    const branch = (ref: string, sha: string, repo: { id: number; fullName: string } | null) => ({
      label: ref,
      ref,
      sha,
      repo_id: repo?.id ?? 0,
      ...(repo && { repo: this.repository(repo) }),
    });
    return {
      id: 80_000 + number,
      number,
      state: p.state,
      title: p.title,
      body: "",
      user: this.user(p.author),
      merged: p.merged,
      merged_at: p.merged ? p.updatedAt : undefined,
      ...(p.draft !== undefined && { draft: p.draft }),
      is_locked: false,
      labels: p.labels.map((name, i) => ({ id: i + 1, name, color: "ededed", exclusive: false })),
      head: branch(p.headRef, p.headSha, p.headRepo),
      base: branch(p.baseRef, "0".repeat(40), p.baseRepo),
      created_at: WORLD.createdAt,
      updated_at: p.updatedAt,
      html_url: `https://forgejo.test/${p.baseRepo.fullName}/pulls/${number}`,
    };
  }

  nextId(): number {
    return this.ids.take();
  }
}

const SEG = "[^/]+";
const json = (status: number, body: unknown): Answer => ({ status, body });
const notFound = json(404, { errors: [], message: "The target couldn't be found.", url: "https://forgejo.test/api/swagger" });

function routes(fake: () => FakeForgejo): Route[] {
  const repoPath = `^/repos/(?<owner>${SEG})/(?<repo>${SEG})`;
  return [
    {
      method: "GET",
      path: new RegExp(`${repoPath}/pulls/(?<index>\\d+)/reviews$`),
      answer: ({ owner, repo, index }) => {
        const all = fake().reviews.get(`${owner}/${repo}#${index}`);
        if (!all) return notFound;
        const body: DeepPartial<PullReview>[] = all.map((r) => ({
          id: r.id,
          user: fake().user(r.author),
          body: r.body,
          state: r.state,
          commit_id: WORLD.headSha,
          stale: false,
          dismissed: false,
          submitted_at: WORLD.updatedAt,
        }));
        return json(200, body);
      },
    },
    {
      method: "GET",
      path: new RegExp(`${repoPath}/collaborators/(?<collaborator>${SEG})/permission$`),
      answer: ({ owner, repo, collaborator }) => {
        if (!fake().tokenIsRepoAdmin) {
          return json(403, {
            message: "Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own",
          });
        }
        const user = fake().users.get(collaborator!);
        if (!user) return notFound;
        const mode = fake().access.get(`${owner}/${repo}\n${user.login}`) ?? "none";
        const body: DeepPartial<RepoCollaboratorPermission> = { permission: mode, role_name: mode, user: fake().user(user) };
        return json(200, body);
      },
    },
    {
      method: "GET",
      path: new RegExp(`${repoPath}/commits/(?<sha>\\w+)/pull$`),
      answer: ({ owner, repo, sha }) => {
        const hit = [...fake().pulls.entries()].find(([k, p]) => k.startsWith(`${owner}/${repo}#`) && p.headSha === sha && p.state === "open");
        return hit ? json(200, fake().pullBody(Number(hit[0].split("#")[1]), hit[1])) : notFound;
      },
    },
    {
      method: "GET",
      path: new RegExp(`${repoPath}/pulls/(?<index>\\d+)$`),
      answer: ({ owner, repo, index }) => {
        const pull = fake().pulls.get(`${owner}/${repo}#${index}`);
        return pull ? json(200, fake().pullBody(Number(index), pull)) : notFound;
      },
    },
    {
      method: "POST",
      path: new RegExp(`${repoPath}/issues/(?<index>\\d+)/comments$`),
      answer: ({ owner, repo, index }, req: RecordedRequest) => {
        const id = fake().nextId();
        const body: DeepPartial<Comment> = {
          id,
          body: String((req.body as { body?: unknown }).body ?? ""),
          user: fake().user(fake().tokenOwner),
          created_at: WORLD.updatedAt,
          updated_at: WORLD.updatedAt,
          issue_url: `https://forgejo.test/${owner}/${repo}/issues/${index}`,
          html_url: `https://forgejo.test/${owner}/${repo}/pulls/${index}#issuecomment-${id}`,
        };
        return json(201, body);
      },
    },
    {
      method: "POST",
      path: new RegExp(`${repoPath}/issues/comments/(?<id>\\d+)/reactions$`),
      answer: (_p, req) => {
        const body: DeepPartial<Reaction> = {
          content: String((req.body as { content?: unknown }).content),
          user: fake().user(fake().tokenOwner),
          created_at: WORLD.updatedAt,
        };
        return json(201, body);
      },
    },
    {
      method: "POST",
      path: new RegExp(`${repoPath}/statuses/(?<sha>[0-9a-f]{40})$`),
      answer: ({ owner, repo, sha }, req) => {
        const b = req.body as { state?: string; context?: string; description?: string; target_url?: string };
        if (!["pending", "success", "error", "failure", "warning"].includes(b.state ?? "")) {
          return json(422, { message: `invalid commit status state: ${b.state ?? ""}`, url: "https://forgejo.test/api/swagger" });
        }
        const id = fake().nextId();
        const status: FakeCommitStatus = {
          repo: `${owner}/${repo}`,
          sha: sha!,
          state: b.state!,
          context: b.context ?? "",
          description: b.description ?? "",
          targetUrl: b.target_url ?? "",
        };
        fake().statuses.push(status);
        const body: DeepPartial<CommitStatus> = {
          id,
          status: status.state,
          context: status.context,
          description: status.description,
          target_url: status.targetUrl,
          url: `https://forgejo.test/api/v1/repos/${owner}/${repo}/statuses/${sha}`,
          creator: fake().user(fake().tokenOwner),
          created_at: WORLD.updatedAt,
          updated_at: WORLD.updatedAt,
        };
        return json(201, body);
      },
    },
    { method: "GET", path: /^\/user$/, answer: () => json(200, fake().user(fake().tokenOwner)) },
  ];
}
