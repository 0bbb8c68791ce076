import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunOutcome } from "../runs/runs.js";
import { findQuestionPosts } from "../store/question-posts.js";
import { DISCUSSION_ID } from "../test-support/fake-forges/fake-gitlab.js";
import type { RecordedRequest } from "../test-support/fake-forges/fake-server.js";
import { WORLD } from "../test-support/fake-forges/world.js";
import {
  commandDelivery,
  deliver,
  fakeOf,
  FORGES,
  forgeHook,
  githubReviewReply,
  startForgeWorld,
  type Forge,
  type ForgeWorld,
  type Hook,
} from "../test-support/forge-deliveries.js";
import { storeKinds } from "../test-support/harness.js";
import { questionComment, questionThread } from "./question-replies.js";

const cases = storeKinds().flatMap((kind) => FORGES.map((forge) => [kind, forge] as const));

/** Where each forge takes the reply to a command on the pull request: GitLab answers in the note's discussion. */
const THREAD: Record<Forge, RegExp> = {
  forge_a: new RegExp(`/projects/${encodeURIComponent(WORLD.repo)}/merge_requests/${WORLD.number}/discussions/${DISCUSSION_ID}/notes$`),
  forge_b: new RegExp(`/repos/${WORLD.repo}/issues/${WORLD.number}/comments$`),
  forge_c: new RegExp(`/repos/${WORLD.repo}/issues/${WORLD.number}/comments$`),
};

const QUESTION = { text: "Merge into `main` or next? @everyone, see https://evil.test", choices: ["main", "next"] };

describe.each(cases)("a run's question on the forge thread, %s, %s", (kind, forge: Forge) => {
  let w: ForgeWorld;
  const posts = (): RecordedRequest[] => fakeOf(w, forge).requests.filter((r) => r.method === "POST" && THREAD[forge].test(r.path));
  const tick = () => w.t.services.questionReplies.tick(w.t.clock.now());

  /** A `/re-review` comment on the pull request launches the review bot; its attempt asks the question. */
  const asked = async (hook: Hook): Promise<string> => {
    const d = commandDelivery(forge, "/re-review", WORLD.maria.login);
    const res = await deliver(w, hook, d.event, d.payload);
    expect(res.body).toMatchObject({ status: "launched" });
    const runId = res.body.run_id as string;
    for (;;) {
      const c = await w.t.services.runQueue.claim("test-worker", 600_000);
      if (!c) throw new Error(`run ${runId} was not on the queue`);
      if (c.run.id !== runId) continue;
      const outcome: RunOutcome = { status: "failed_resumable", failureCode: "QUESTION", question: QUESTION };
      expect((await w.t.services.runQueue.finish(c, outcome)).finished).toBe(true);
      return runId;
    }
  };

  beforeAll(async () => {
    w = await startForgeWorld(kind);
  });
  afterAll(() => w.close());
  beforeEach(() => {
    w.t.clock.advance(60_000);
    fakeOf(w, forge).clearFaults();
  });

  it("posts the question on the thread the command came from, once, with how to answer; the bot's words stay inert", async () => {
    const hook = await forgeHook(w, forge, { post_questions: true });
    const before = posts().length;
    const runId = await asked(hook);
    expect(posts()).toHaveLength(before);
    expect((await tick()).get(runId)).toBe("posted");
    const sent = posts().slice(before);
    expect(sent).toHaveLength(1);
    const body = (sent[0]!.body as { body: string }).body;
    expect(body).toBe(questionComment(QUESTION, { botId: "review-pr", runId, runUrl: `${w.t.config.baseUrl}/console/runs/${runId}` }));
    expect(body).toContain("```text\nMerge into `main` or next? @everyone, see https://evil.test\n\nChoices:\n- main\n- next\n```");
    expect(body).toContain(`remote runs answer ${runId} <answer>`);
    expect(await findQuestionPosts(w.t.store.db, runId)).toMatchObject([{ attempt: 1, due_at: null, comment_id: expect.any(String), tries: 0 }]);

    w.t.clock.advance(60_000);
    expect((await tick()).has(runId)).toBe(false);
    expect(posts()).toHaveLength(before + 1);
  });

  it("is off by default: a webhook that does not ask posts nothing", async () => {
    const hook = await forgeHook(w, forge);
    const before = posts().length;
    const runId = await asked(hook);
    expect((await tick()).has(runId)).toBe(false);
    expect(await findQuestionPosts(w.t.store.db, runId)).toEqual([]);
    expect(posts()).toHaveLength(before);
  });

  it("does not post a question answered before it was sent", async () => {
    const hook = await forgeHook(w, forge, { post_questions: true });
    const before = posts().length;
    const runId = await asked(hook);
    const answered = await w.seed.member.api.post(`/api/runs/${runId}/answer`, { answer: "next" });
    expect(answered.status).toBe(200);
    expect((await tick()).get(runId)).toBe("dropped");
    expect(posts()).toHaveLength(before);
  });

  it("tries a forge failure again with backoff, never touching the run", async () => {
    const hook = await forgeHook(w, forge, { post_questions: true });
    const runId = await asked(hook);
    fakeOf(w, forge).fault({ match: /comments|notes/, status: 503 });
    expect((await tick()).get(runId)).toBe("failed");
    expect(await findQuestionPosts(w.t.store.db, runId)).toMatchObject([{ tries: 1, due_at: w.t.clock.now() + 30_000 }]);
    expect((await w.seed.member.api.get(`/api/runs/${runId}`)).body).toMatchObject({ status: "failed_resumable", waiting_for_answer: true });
    fakeOf(w, forge).clearFaults();
    w.t.clock.advance(10_000);
    expect((await tick()).has(runId)).toBe(false);
    w.t.clock.advance(20_000);
    expect((await tick()).get(runId)).toBe("posted");
  });
});

describe("the thread of a run", () => {
  const vars = (v: Record<string, string>) => JSON.stringify(v);
  it.each([
    [
      "a GitHub pull request's conversation",
      { subject_id: "gh:acme/app#12", parent_subject_id: null, vars: "{}" },
      { repo: "acme/app", number: 12, to: { commentId: "" } },
    ],
    [
      "a GitLab merge request's discussion",
      { subject_id: "gl:group/sub/app!5", parent_subject_id: null, vars: vars({ discussion_id: "abc" }) },
      { repo: "group/sub/app", number: 5, to: { commentId: "abc", threadId: "abc" } },
    ],
    [
      "a GitLab issue",
      { subject_id: "gl:group/app#3", parent_subject_id: null, vars: "{}" },
      { repo: "group/app", number: 3, to: { commentId: "", onIssue: true } },
    ],
    [
      "a question bound to its comment, under its pull request",
      { subject_id: "fj:acme/app#7/note:99", parent_subject_id: "fj:acme/app#7", vars: "{}" },
      { repo: "acme/app", number: 7, to: { commentId: "" } },
    ],
  ])("%s", (_what, run, want) => {
    expect(questionThread(run)).toEqual(want);
  });

  it("none for a run with no forge subject", () => {
    expect(questionThread({ subject_id: null, parent_subject_id: null, vars: "{}" })).toBeUndefined();
    expect(questionThread({ subject_id: "generic:abc", parent_subject_id: null, vars: "{}" })).toBeUndefined();
  });

  it("fences the bot's words with more backticks than they hold", () => {
    const body = questionComment({ text: "a ```` b" }, { botId: "b", runId: "run_1", runUrl: "https://x/console/runs/run_1" });
    expect(body).toContain("`````text\na ```` b\n`````");
  });
});

describe.each(storeKinds())("a question asked in a GitHub review thread, %s", (kind) => {
  let w: ForgeWorld;
  beforeAll(async () => {
    w = await startForgeWorld(kind);
  });
  afterAll(() => w.close());

  it("is answered in that thread (a reply to its first comment), not on the conversation", async () => {
    const hook = await forgeHook(w, "forge_b", { post_questions: true });
    // Review comment 501 opened the bot's thread on the fake GitHub.
    const res = await deliver(w, hook, "pull_request_review_comment", githubReviewReply("Would a pool help here?", WORLD.maria.login, 501));
    expect(res.body).toMatchObject({ status: "launched", bot: "converse" });
    const c = (await w.t.services.runQueue.claim("test-worker", 600_000))!;
    expect(c.run.id).toBe(res.body.run_id);
    await w.t.services.runQueue.finish(c, { status: "failed_resumable", failureCode: "QUESTION", question: { text: "Which pool size?" } });
    const from = w.github.server.requests.length;
    expect((await w.t.services.questionReplies.tick(w.t.clock.now())).get(c.run.id)).toBe("posted");
    const sent = w.github.server.requests.slice(from).filter((r) => r.method === "POST");
    expect(sent.map((r) => r.path)).toEqual([`/api/v3/repos/${WORLD.repo}/pulls/${WORLD.number}/comments/501/replies`]);
    expect((sent[0]!.body as { body: string }).body).toContain("```text\nWhich pool size?\n```");
  });
});
