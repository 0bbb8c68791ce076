import type {
  AwardEmojiSchema,
  CommitStatusSchema,
  DiscussionNoteSchema,
  DiscussionSchema,
  ExpandedUserSchema,
  MemberSchema,
  MergeRequestSchemaWithBasicLabels,
  SimpleUserSchema,
} from "@gitbeaker/rest";
import { FakeServer, type Answer, type RecordedRequest, type Route } from "./fake-server.js";
import type { FakeCommitStatus } from "./fake-github.js";
import { IdSequence, WORLD, type DeepPartial } from "./world.js";

/**
 * GitLab's REST API under /api/v4, shaped as GitLab's API docs show (checked against
 * gitbeaker's schema types, which carry an index signature, so they check known fields only).
 */
type Person = { login: string; id: number };

/** GitLab's refusal of a status that repeats a pending or running one of the same name. */
function repeatedTransition(last: string | undefined, state: string): string | undefined {
  if (last !== state || (state !== "pending" && state !== "running")) return undefined;
  const verb = state === "pending" ? "enqueue" : "run";
  return `Cannot transition status via :${verb} from :${state} (Reason(s): Status cannot transition via "${verb}")`;
}

export interface FakeMergeRequest {
  state: "opened" | "closed" | "merged" | "locked";
  title: string;
  draft: boolean;
  sourceProjectId: number;
  targetProjectId: number;
  sha: string;
  sourceBranch: string;
  targetBranch: string;
  author: Person;
  labels: string[];
  updatedAt: string;
}

export interface FakeNote {
  id: number;
  author: Person;
  body: string;
  createdAt: string;
  system?: boolean;
}

export const DISCUSSION_ID = "6a9c1750b37d513a43987b574953fceb50b03ce7";

export class FakeGitLab {
  readonly tokenOwner: Person = { ...WORLD.bot };
  readonly users = new Map<string, Person>([
    [WORLD.maria.login, { ...WORLD.maria }],
    [WORLD.bot.login, { ...WORLD.bot }],
  ]);
  /** Project path → id; a project is found by either. */
  readonly projects = new Map<string, number>([[WORLD.repo, WORLD.repoId]]);
  /** `projectId\nuserId` → access level; a user not here is not a member (404). */
  readonly accessLevels = new Map<string, number>([[`${WORLD.repoId}\n${WORLD.maria.id}`, 30]]);
  readonly mergeRequests = new Map<string, FakeMergeRequest>();
  readonly discussions = new Map<string, FakeNote[]>();
  /** `projectId!iid` → the MR's notes, oldest first (discussion notes included as GitLab lists them). */
  readonly mrNotes = new Map<string, FakeNote[]>();
  /** Every commit status set, oldest first; `repo` is the project's path. */
  readonly statuses: FakeCommitStatus[] = [];
  private readonly ids = new IdSequence(9_000);

  private constructor(readonly server: FakeServer) {
    this.mergeRequests.set(`${WORLD.repoId}!${WORLD.number}`, {
      state: "opened",
      title: "Faster sprockets",
      draft: false,
      sourceProjectId: WORLD.repoId,
      targetProjectId: WORLD.repoId,
      sha: WORLD.headSha,
      sourceBranch: WORLD.headRef,
      targetBranch: WORLD.baseRef,
      author: { ...WORLD.maria },
      labels: [...WORLD.labels],
      updatedAt: WORLD.updatedAt,
    });
    this.mrNotes.set(`${WORLD.repoId}!${WORLD.number}`, [
      { id: 201, author: { ...WORLD.bot }, body: WORLD.review, createdAt: WORLD.createdAt },
      { id: 202, author: { ...WORLD.maria }, body: "Thanks, fixing.", createdAt: WORLD.updatedAt },
      { id: 203, author: { ...WORLD.bot }, body: "added 1 commit", createdAt: WORLD.updatedAt, system: true },
    ]);
    this.discussions.set(DISCUSSION_ID, [
      { id: 301, author: { ...WORLD.bot }, body: "This loop allocates on every call.", createdAt: WORLD.createdAt },
      { id: 302, author: { ...WORLD.maria }, body: "Would a pool help here?", createdAt: WORLD.updatedAt },
      { id: 303, author: { ...WORLD.maria }, body: "changed this line in version 2 of the diff", createdAt: WORLD.updatedAt, system: true },
    ]);
  }

  static async start(prefix = "/api/v4"): Promise<FakeGitLab> {
    let fake: FakeGitLab | undefined;
    const server = await FakeServer.start(
      prefix,
      routes(() => fake!),
    );
    fake = new FakeGitLab(server);
    return fake;
  }

  mergeRequest(iid = WORLD.number, projectId: number = WORLD.repoId): FakeMergeRequest {
    const mr = this.mergeRequests.get(`${projectId}!${iid}`);
    if (!mr) throw new Error(`no merge request ${projectId}!${iid}`);
    return mr;
  }

  /** `:id` is a project's numeric id or its URL-encoded full path. */
  projectId(idOrPath: string): number | undefined {
    return /^\d+$/.test(idOrPath) ? Number(idOrPath) : this.projects.get(idOrPath);
  }

  pathOf(projectId: number): string {
    return [...this.projects].find(([, id]) => id === projectId)?.[0] ?? `group/project-${projectId}`;
  }

  user(p: Person): DeepPartial<SimpleUserSchema> {
    return { id: p.id, username: p.login, name: p.login, state: "active", avatar_url: "", web_url: `https://gitlab.test/${p.login}` };
  }

  note(n: FakeNote, noteableIid: number): DeepPartial<DiscussionNoteSchema> {
    return {
      id: n.id,
      type: "DiscussionNote",
      body: n.body,
      author: this.user(n.author),
      created_at: n.createdAt,
      updated_at: n.createdAt,
      system: n.system === true,
      noteable_type: "MergeRequest",
      noteable_iid: noteableIid,
      resolvable: true,
    };
  }

  nextId(): number {
    return this.ids.take();
  }
}

const SEG = "[^/]+";
const json = (status: number, body: unknown): Answer => ({ status, body });
const notFound = (what = "Not found") => json(404, { message: `404 ${what}` });
const bodyText = (r: RecordedRequest) => String((r.body as { body?: unknown }).body ?? "");

function routes(fake: () => FakeGitLab): Route[] {
  const mrPath = `^/projects/(?<id>${SEG})/merge_requests/(?<iid>\\d+)`;
  const issuePath = `^/projects/(?<id>${SEG})/issues/(?<iid>\\d+)`;
  const withMr = (id: string, iid: string, then: (projectId: number, mr: FakeMergeRequest) => Answer): Answer => {
    const projectId = fake().projectId(id);
    const mr = projectId === undefined ? undefined : fake().mergeRequests.get(`${projectId}!${iid}`);
    return projectId === undefined ? notFound("Project Not Found") : mr ? then(projectId, mr) : notFound();
  };
  /** A merge request as GitLab's API answers it. */
  const mrBody = (projectId: number, iid: string, mr: FakeMergeRequest) => {
    const path = fake().pathOf(projectId);
    const body: DeepPartial<MergeRequestSchemaWithBasicLabels> = {
      id: 50_000 + Number(iid),
      iid: Number(iid),
      project_id: projectId,
      title: mr.title,
      state: mr.state,
      draft: mr.draft,
      work_in_progress: mr.draft,
      source_project_id: mr.sourceProjectId,
      target_project_id: mr.targetProjectId,
      source_branch: mr.sourceBranch,
      target_branch: mr.targetBranch,
      sha: mr.sha,
      author: fake().user(mr.author),
      labels: mr.labels,
      created_at: WORLD.createdAt,
      updated_at: mr.updatedAt,
      references: { short: `!${iid}`, relative: `!${iid}`, full: `${path}!${iid}` },
      web_url: `https://gitlab.test/${path}/-/merge_requests/${iid}`,
    };
    return body;
  };
  return [
    {
      // GitLab refuses a status that repeats a pending or running one of the same name (no transition).
      method: "POST",
      path: new RegExp(`^/projects/(?<id>${SEG})/statuses/(?<sha>[0-9a-f]{40})$`),
      answer: ({ id, sha }, req) => {
        const projectId = fake().projectId(id!);
        if (projectId === undefined) return notFound("Project Not Found");
        const b = req.body as { state?: string; name?: string; description?: string; target_url?: string; ref?: string };
        const state = b.state ?? "";
        if (!["pending", "running", "success", "failed", "canceled", "skipped"].includes(state))
          return json(400, { error: "state does not have a valid value" });
        const name = b.name ?? "default";
        const repo = fake().pathOf(projectId);
        const last = fake().statuses.findLast((x) => x.repo === repo && x.sha === sha && x.context === name);
        const refused = repeatedTransition(last?.state, state);
        if (refused) return json(400, { message: refused });
        const status: FakeCommitStatus = { repo, sha: sha!, state, context: name, description: b.description ?? "", targetUrl: b.target_url ?? "" };
        fake().statuses.push(status);
        const body: DeepPartial<CommitStatusSchema> = {
          id: fake().nextId(),
          sha,
          ref: b.ref ?? WORLD.headRef,
          status: state as CommitStatusSchema["status"],
          name,
          target_url: status.targetUrl,
          description: status.description,
          created_at: WORLD.updatedAt,
          allow_failure: false,
          author: fake().user(fake().tokenOwner),
          ...(state !== "pending" && { started_at: WORLD.updatedAt }),
          ...(["success", "failed", "canceled"].includes(state) && { finished_at: WORLD.updatedAt }),
        };
        return json(201, body);
      },
    },
    {
      method: "GET",
      path: /^\/users$/,
      answer: (_p, _r, url) => {
        const wanted = (url.searchParams.get("username") ?? "").toLowerCase();
        return json(
          200,
          [...fake().users.values()].filter((u) => u.login.toLowerCase() === wanted).map((u) => fake().user(u)),
        );
      },
    },
    {
      method: "GET",
      path: new RegExp(`^/projects/(?<id>${SEG})/members/all/(?<userId>\\d+)$`),
      answer: ({ id, userId }) => {
        const projectId = fake().projectId(id!);
        const level = fake().accessLevels.get(`${projectId}\n${userId}`);
        const user = [...fake().users.values()].find((u) => u.id === Number(userId));
        if (projectId === undefined || level === undefined || !user) return notFound();
        const body: DeepPartial<MemberSchema> = { ...fake().user(user), access_level: level, created_at: WORLD.createdAt };
        return json(200, body);
      },
    },
    {
      method: "GET",
      path: new RegExp(`^/projects/(?<id>${SEG})/repository/commits/(?<sha>\\w+)/merge_requests$`),
      answer: ({ id, sha }) => {
        const projectId = fake().projectId(id!);
        if (projectId === undefined) return notFound("Project Not Found");
        const mrs = [...fake().mergeRequests.entries()].filter(([k, mr]) => k.startsWith(`${projectId}!`) && mr.sha === sha);
        return json(
          200,
          mrs.map(([k, mr]) => mrBody(projectId, k.split("!")[1]!, mr)),
        );
      },
    },
    {
      method: "GET",
      path: new RegExp(`${mrPath}$`),
      answer: ({ id, iid }) => withMr(id!, iid!, (projectId, mr) => json(200, mrBody(projectId, iid!, mr))),
    },
    {
      method: "GET",
      path: new RegExp(`${mrPath}/discussions/(?<discussionId>[0-9a-f]+)$`),
      answer: ({ id, iid, discussionId }) =>
        withMr(id!, iid!, () => {
          const notes = fake().discussions.get(discussionId!);
          if (!notes) return notFound();
          const body: DeepPartial<DiscussionSchema> = { id: discussionId, individual_note: false, notes: notes.map((n) => fake().note(n, Number(iid))) };
          return json(200, body);
        }),
    },
    {
      method: "POST",
      path: new RegExp(`${mrPath}/discussions/(?<discussionId>[0-9a-f]+)/notes$`),
      answer: ({ id, iid, discussionId }, req) =>
        withMr(id!, iid!, () => {
          const notes = fake().discussions.get(discussionId!);
          if (!notes) return notFound();
          const note: FakeNote = { id: fake().nextId(), author: fake().tokenOwner, body: bodyText(req), createdAt: WORLD.updatedAt };
          notes.push(note);
          return json(201, fake().note(note, Number(iid)));
        }),
    },
    {
      method: "GET",
      path: new RegExp(`${mrPath}/notes$`),
      answer: ({ id, iid }, _req, url) =>
        withMr(id!, iid!, (projectId) => {
          const all = [...(fake().mrNotes.get(`${projectId}!${iid}`) ?? [])];
          // GitLab's default and our ask: newest first by created_at.
          if ((url.searchParams.get("sort") ?? "desc") === "desc") all.reverse();
          const perPage = Number(url.searchParams.get("per_page") ?? 20);
          return json(
            200,
            all.slice(0, perPage).map((n) => fake().note(n, Number(iid))),
          );
        }),
    },
    {
      method: "POST",
      path: new RegExp(`${mrPath}/notes$`),
      answer: ({ id, iid }, req) =>
        withMr(id!, iid!, () =>
          json(201, fake().note({ id: fake().nextId(), author: fake().tokenOwner, body: bodyText(req), createdAt: WORLD.updatedAt }, Number(iid))),
        ),
    },
    {
      method: "POST",
      path: new RegExp(`${mrPath}/notes/(?<noteId>\\d+)/award_emoji$`),
      answer: ({ id, iid, noteId }, req) =>
        withMr(id!, iid!, () => {
          const body: DeepPartial<AwardEmojiSchema> = {
            id: fake().nextId(),
            name: String((req.body as { name?: unknown }).name),
            user: fake().user(fake().tokenOwner),
            created_at: WORLD.updatedAt,
            updated_at: WORLD.updatedAt,
            awardable_id: Number(noteId),
            awardable_type: "Note",
          };
          return json(201, body);
        }),
    },
    // Issue notes: any issue of a known project (the lanes only answer on them).
    {
      method: "POST",
      path: new RegExp(`${issuePath}(/discussions/(?<discussionId>[0-9a-f]+))?/notes$`),
      answer: ({ id, iid }, req) =>
        fake().projectId(id!) === undefined
          ? notFound("Project Not Found")
          : json(201, {
              ...fake().note({ id: fake().nextId(), author: fake().tokenOwner, body: bodyText(req), createdAt: WORLD.updatedAt }, Number(iid)),
              noteable_type: "Issue",
            }),
    },
    {
      method: "POST",
      path: new RegExp(`${issuePath}/notes/(?<noteId>\\d+)/award_emoji$`),
      answer: ({ id, noteId }, req) => {
        if (fake().projectId(id!) === undefined) return notFound("Project Not Found");
        const body: DeepPartial<AwardEmojiSchema> = {
          id: fake().nextId(),
          name: String((req.body as { name?: unknown }).name),
          user: fake().user(fake().tokenOwner),
          awardable_id: Number(noteId),
          awardable_type: "Note",
        };
        return json(201, body);
      },
    },
    {
      method: "GET",
      path: /^\/user$/,
      answer: () => json(200, { ...fake().user(fake().tokenOwner), bot: true, is_admin: false } satisfies DeepPartial<ExpandedUserSchema>),
    },
  ];
}
