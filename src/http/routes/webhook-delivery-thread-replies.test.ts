import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WORLD } from "../../test-support/fake-forges/world.js";
import {
  deliver,
  forgeHook,
  githubReviewReply,
  gitlabNote,
  requestsSince,
  runOf,
  startForgeWorld,
  type ForgeWorld,
} from "../../test-support/forge-deliveries.js";
import { storeKinds } from "../../test-support/harness.js";

/** The bot's thread on GitHub is review comment 501 (the bot's), answered by 502; 601 is maria's own thread. */
const BOT_THREAD = 501;
const HUMAN_THREAD = 601;

describe.each(storeKinds())("replies in the bot's review threads on %s", (kind) => {
  let w: ForgeWorld;
  beforeAll(async () => {
    w = await startForgeWorld(kind);
  });
  afterAll(() => w.close());
  beforeEach(() => {
    w.t.clock.advance(60_000);
    w.github.server.clearFaults();
    w.gitlab.server.clearFaults();
  });

  describe("forge_b pull_request_review_comment created", () => {
    const reply = async (hookFields: Record<string, unknown>, payload: unknown) => {
      const hook = await forgeHook(w, "forge_b", hookFields);
      const from = w.github.server.requests.length;
      const res = await deliver(w, hook, "pull_request_review_comment", payload);
      return { hook, res, calls: requestsSince(w.github.server, from) };
    };

    it("a reply in the bot's thread launches the converse bot with the thread as context", async () => {
      const { res } = await reply({}, githubReviewReply("Would a pool help here?", WORLD.maria.login, BOT_THREAD));
      expect(res.body).toMatchObject({ status: "launched", bot: "converse" });
      const run = await runOf(w, res.body.run_id);
      expect(run.vars).toMatchObject({ discussion_id: String(BOT_THREAD), trigger_note: "Would a pool help here?", replier: WORLD.maria.login });
      expect(run.vars.thread_context).toContain(`${WORLD.bot.login}: This loop allocates on every call.`);
      expect(run.repo_ref).toBe(WORLD.headRef);
      expect(run.parent_subject_id).toBe(`gh:${WORLD.repo}#${WORLD.number}`);
    });

    it("a reply in a human-to-human thread never triggers", async () => {
      const { res } = await reply({}, githubReviewReply("Agreed.", WORLD.maria.login, HUMAN_THREAD));
      expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/human-to-human/) });
    });

    it("a comment that opens a thread is not a reply", async () => {
      const { res, calls } = await reply({}, githubReviewReply("New remark", WORLD.maria.login, undefined));
      expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/starts a thread/) });
      expect(calls).toEqual([]);
    });

    it("the bot's own reply is loop-guarded", async () => {
      const { res, calls } = await reply({}, githubReviewReply("Yes, a pool.", WORLD.bot.login, BOT_THREAD));
      expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/bot's own identity/) });
      expect(calls).toEqual([]);
    });

    it("a replier without the role is refused", async () => {
      const { res } = await reply({}, githubReviewReply("Why?", "drive-by", BOT_THREAD));
      expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/drive-by: not on authorized_repliers/) });
    });

    it("needs the converse bot in bot_ids and the event in event_allowlist", async () => {
      const noBot = await reply({ bot_ids: ["review-pr"] }, githubReviewReply("Why?", WORLD.maria.login, BOT_THREAD));
      expect(noBot.res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/converse bot is not in bot_ids/) });
      const noEvent = await reply({ event_allowlist: ["pull_request"] }, githubReviewReply("Why?", WORLD.maria.login, BOT_THREAD));
      expect(noEvent.res.body).toMatchObject({ status: "filtered", reason: "event not in event_allowlist: pull_request_review_comment" });
    });

    it("a forge failure reading the thread is a launch_error, and nothing is posted", async () => {
      w.github.server.fault({ match: /\/pulls\/7\/comments/, status: 502 });
      const { res, calls } = await reply({}, githubReviewReply("Why?", WORLD.maria.login, BOT_THREAD));
      expect(res.body).toMatchObject({ status: "launch_error", reason: expect.stringMatching(/reading review thread 501/) });
      expect(calls.filter((c) => !c.startsWith("GET "))).toEqual([]);
    });
  });

  describe("forge_a Note Hook, a plain note in a discussion", () => {
    it("launches the converse bot when the bot took part in the discussion", async () => {
      const hook = await forgeHook(w, "forge_a");
      const res = await deliver(w, hook, "Note Hook", gitlabNote("Would a pool help here?", WORLD.maria.login));
      expect(res.body).toMatchObject({ status: "launched", bot: "converse" });
      const run = await runOf(w, res.body.run_id);
      expect(run.vars.thread_context).toContain("This loop allocates on every call.");
      expect(run.repo_ref).toBe(WORLD.headRef);
    });

    it("a discussion among people only never triggers", async () => {
      w.gitlab.discussions.set("ab12", [{ id: 1, author: { ...WORLD.maria }, body: "A thought", createdAt: WORLD.createdAt }]);
      const hook = await forgeHook(w, "forge_a");
      const res = await deliver(w, hook, "Note Hook", gitlabNote("Another thought", WORLD.maria.login, { discussion: "ab12" }));
      expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/human-to-human/) });
    });

    it("a non-command note on an issue is filtered", async () => {
      const hook = await forgeHook(w, "forge_a");
      const res = await deliver(w, hook, "Note Hook", gitlabNote("Nice", WORLD.maria.login, { onIssue: true }));
      expect(res.body).toMatchObject({ status: "filtered", reason: "a non-command issue note does not trigger" });
    });
  });
});
