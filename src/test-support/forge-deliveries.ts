import { createHmac } from "node:crypto";
import { expect } from "vitest";
import { fixture, githubExample, loadGithubExamples } from "../intake/fixtures/fixtures.js";
import type { StoreKind } from "../store/store.js";
import { FakeForgejo } from "./fake-forges/fake-forgejo.js";
import { FakeGitHub } from "./fake-forges/fake-github.js";
import { DISCUSSION_ID, FakeGitLab } from "./fake-forges/fake-gitlab.js";
import type { FakeServer } from "./fake-forges/fake-server.js";
import { WORLD } from "./fake-forges/world.js";
import { seedTenancy, startTestApp, type TestApp } from "./harness.js";

/** Test support: the real app, a team, and the three fake forges, with deliveries signed as each forge signs them. */
export type Forge = "forge_a" | "forge_b" | "forge_c";
export const FORGES: readonly Forge[] = ["forge_a", "forge_b", "forge_c"];

export interface ForgeWorld {
  t: TestApp;
  seed: Awaited<ReturnType<typeof seedTenancy>>;
  github: FakeGitHub;
  gitlab: FakeGitLab;
  forgejo: FakeForgejo;
  close(): Promise<void>;
}

export interface Hook {
  id: string;
  token: string;
  provider: Forge;
}

export async function startForgeWorld(kind: StoreKind): Promise<ForgeWorld> {
  const t = await startTestApp(kind, { SERVICE_WEBHOOK_SYNC_DEBOUNCE: "0", SERVICE_FORGE_BOT_LOGIN: WORLD.bot.login });
  const seed = await seedTenancy(t);
  const [github, gitlab, forgejo] = await Promise.all([FakeGitHub.start(), FakeGitLab.start(), FakeForgejo.start()]);
  return {
    t,
    seed,
    github,
    gitlab,
    forgejo,
    close: async () => {
      await Promise.all([github.server.close(), gitlab.server.close(), forgejo.server.close()]);
      await t.close();
    },
  };
}

export function fakeOf(w: ForgeWorld, provider: Forge): FakeServer {
  return provider === "forge_a" ? w.gitlab.server : provider === "forge_b" ? w.github.server : w.forgejo.server;
}

/** A webhook bound to the provider's fake forge through a stored `forge` key. */
export async function forgeHook(w: ForgeWorld, provider: Forge, fields: Record<string, unknown> = {}): Promise<Hook> {
  const api = w.seed.teamAdmin.api;
  const key = await api.post(`/api/teams/${w.seed.team.id}/keys`, { provider: "forge", name: `forge token ${provider}`, secret: `tok-${provider}` });
  expect(key.status).toBe(201);
  const r = await api.post(`/api/teams/${w.seed.team.id}/webhooks`, {
    provider,
    bot_ids: ["review-pr", "converse", "improve"],
    event_allowlist: ["*"],
    forge_base_url: fakeOf(w, provider).url,
    forge_token: key.body.id,
    ...fields,
  });
  expect(r.status).toBe(201);
  return { id: r.body.config.id, token: r.body.token, provider };
}

const sign = (secret: string, body: string) => createHmac("sha256", secret).update(body).digest("hex");

/** POSTs `payload` as the hook's forge sends `event`, and parses the answer. */
export async function deliver(w: ForgeWorld, hook: Hook, event: string, payload: unknown) {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (hook.provider === "forge_a") Object.assign(headers, { "x-gitlab-event": event, "x-gitlab-token": hook.token });
  if (hook.provider === "forge_b") Object.assign(headers, { "x-github-event": event, "x-hub-signature-256": `sha256=${sign(hook.token, body)}` });
  if (hook.provider === "forge_c") Object.assign(headers, { "x-forgejo-event": event, "x-forgejo-signature": sign(hook.token, body) });
  const res = await w.t.app.inject({ method: "POST", url: `/api/webhooks/${hook.provider}/${hook.id}`, payload: body, headers });
  return { status: res.statusCode, body: JSON.parse(res.body) as Record<string, any> };
}

export async function deliveryRows(w: ForgeWorld, hook: Hook): Promise<any[]> {
  return (await w.seed.member.api.get(`/api/teams/${w.seed.team.id}/webhooks/${hook.id}/deliveries`)).body.deliveries;
}

export async function runOf(w: ForgeWorld, runId: string): Promise<any> {
  const r = await w.seed.member.api.get(`/api/runs/${runId}`);
  expect(r.status).toBe(200);
  return r.body;
}

/** The forge's requests since `from`, as "METHOD /path". */
export function requestsSince(server: FakeServer, from: number): string[] {
  return server.requests.slice(from).map((r) => `${r.method} ${r.path}`);
}

const examples = loadGithubExamples();
let nextCommentId = 70_000;
export const newCommentId = () => ++nextCommentId;

const githubRepo = (p: Record<string, any>) =>
  Object.assign(p.repository, { id: WORLD.repoId, full_name: WORLD.repo, clone_url: `https://forge.test/${WORLD.repo}.git`, default_branch: "main" });

/** A comment on the pull request's conversation (`issue_comment`), on forge_b or forge_c. */
export function githubLikeComment(provider: "forge_b" | "forge_c", body: string, by: string, over: { id?: number; onIssue?: boolean } = {}) {
  const p = githubExample(examples, "issue_comment", "created") as Record<string, any>;
  githubRepo(p);
  Object.assign(p.issue, { number: WORLD.number, state: "open", html_url: `https://forge.test/${WORLD.repo}/pull/${WORLD.number}`, title: "Faster sprockets" });
  if (over.onIssue) {
    delete p.issue.pull_request;
    p.issue.html_url = `https://forge.test/${WORLD.repo}/issues/${WORLD.number}`;
  } else if (provider === "forge_b") p.issue.pull_request = { url: "https://forge.test/api/pulls/7" };
  else p.is_pull = true;
  Object.assign(p.comment, { id: over.id ?? newCommentId(), body, user: { login: by, id: 5 } });
  p.sender = { login: by, id: 5 };
  return p;
}

/** A note on the merge request (GitLab Note Hook), in `discussion`. */
export function gitlabNote(body: string, by: string, over: { id?: number; discussion?: string; onIssue?: boolean } = {}) {
  const p = fixture("gitlab-note-merge-request") as Record<string, any>;
  Object.assign(p.project, { id: WORLD.repoId, path_with_namespace: WORLD.repo });
  p.project_id = WORLD.repoId;
  p.user = { ...p.user, username: by, id: 5 };
  Object.assign(p.object_attributes, { id: over.id ?? newCommentId(), note: body, discussion_id: over.discussion ?? DISCUSSION_ID });
  Object.assign(p.merge_request, { iid: WORLD.number, state: "opened", source_project_id: WORLD.repoId, target_project_id: WORLD.repoId });
  if (over.onIssue) {
    p.object_attributes.noteable_type = "Issue";
    p.object_attributes.url = `https://forge.test/${WORLD.repo}/-/issues/3#note_${p.object_attributes.id}`;
    delete p.merge_request;
    p.issue = { iid: 3, title: "Sprockets are slow", description: "They take 2 s.", state: "opened", url: `https://forge.test/${WORLD.repo}/-/issues/3` };
  }
  return p;
}

/** A command or note on `provider`, as its forge sends it: the event header and the payload. */
export function commandDelivery(provider: Forge, body: string, by: string, over: { id?: number; onIssue?: boolean } = {}) {
  return provider === "forge_a"
    ? { event: "Note Hook", payload: gitlabNote(body, by, over) }
    : { event: "issue_comment", payload: githubLikeComment(provider, body, by, over) };
}

/** A review comment on GitHub (`pull_request_review_comment` created), replying in the thread `inReplyTo` opened. */
export function githubReviewReply(body: string, by: string, inReplyTo: number | undefined, over: { id?: number } = {}) {
  const p = githubExample(examples, "pull_request_review_comment", "created") as Record<string, any>;
  githubRepo(p);
  const repo = { id: WORLD.repoId, full_name: WORLD.repo };
  Object.assign(p.pull_request, { number: WORLD.number, state: "open", html_url: `https://forge.test/${WORLD.repo}/pull/${WORLD.number}` });
  Object.assign(p.pull_request.head, { sha: WORLD.headSha, ref: WORLD.headRef, repo });
  Object.assign(p.pull_request.base, { ref: WORLD.baseRef, repo });
  Object.assign(p.comment, { id: over.id ?? newCommentId(), body, user: { login: by, id: 5 } });
  if (inReplyTo === undefined) delete p.comment.in_reply_to_id;
  else p.comment.in_reply_to_id = inReplyTo;
  p.sender = { login: by, id: 5 };
  return p;
}

/** A click on "request review" from `reviewer` by `by` (forge_b/forge_c `pull_request` review_requested). */
export function githubLikeReviewRequest(reviewer: string, by: string, updatedAt: string = WORLD.updatedAt) {
  const p = githubExample(examples, "pull_request", "review_requested") as Record<string, any>;
  githubRepo(p);
  const repo = { id: WORLD.repoId, full_name: WORLD.repo };
  Object.assign(p.pull_request, { number: WORLD.number, state: "open", draft: false, updated_at: updatedAt, user: { login: WORLD.maria.login, id: 42 } });
  Object.assign(p.pull_request.head, { sha: WORLD.headSha, ref: WORLD.headRef, repo });
  Object.assign(p.pull_request.base, { ref: WORLD.baseRef, repo });
  p.requested_reviewer = { login: reviewer, id: 99 };
  p.sender = { login: by, id: 5 };
  return p;
}

/** A GitLab Merge Request Hook update whose changes.reviewers re-requests (or adds) `reviewer`. */
export function gitlabReviewerUpdate(reviewer: string, by: string, how: "re_requested" | "added", updatedAt: string = "2024-03-04 11:25:00 UTC") {
  const p = fixture("gitlab-merge-request-update-unchanged") as Record<string, any>;
  Object.assign(p.project, { id: WORLD.repoId, path_with_namespace: WORLD.repo });
  Object.assign(p.object_attributes, { iid: WORLD.number, source_project_id: WORLD.repoId, target_project_id: WORLD.repoId, updated_at: updatedAt });
  p.user = { ...p.user, username: by, id: 5 };
  p.changes = {
    reviewers:
      how === "re_requested"
        ? { previous: [{ username: reviewer }], current: [{ username: reviewer, re_requested: true }] }
        : { previous: [], current: [{ username: reviewer }] },
  };
  return p;
}

/** An issue opened by `author` (forge_b/forge_c `issues` opened), with GitHub's author_association. */
export function githubLikeIssueOpened(author: string | undefined, association?: string) {
  const p = githubExample(examples, "issues", "opened") as Record<string, any>;
  githubRepo(p);
  Object.assign(p.issue, { number: 3, state: "open", title: "Sprockets are slow", body: "They take 2 s.", labels: [] });
  if (author === undefined) delete p.issue.user;
  else p.issue.user = { login: author, id: 5 };
  if (association === undefined) delete p.issue.author_association;
  else p.issue.author_association = association;
  p.sender = { login: author ?? "ghost", id: 5 };
  return p;
}

/** GitHub's merge queue ejecting the pull request (`pull_request` dequeued) for `reason`. */
export function githubDequeued(reason: string, headSha: string = WORLD.headSha) {
  const p = githubLikeReviewRequest(WORLD.bot.login, WORLD.maria.login);
  p.action = "dequeued";
  p.reason = reason;
  delete p.requested_reviewer;
  p.pull_request.head.sha = headSha;
  return p;
}
