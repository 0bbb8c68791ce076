import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture, githubExample, loadGithubExamples } from "../../intake/fixtures/fixtures.js";
import { deliver, type Forge, FORGES, forgeHook, githubLikeIssueOpened, startForgeWorld, type ForgeWorld } from "../../test-support/forge-deliveries.js";
import { storeKinds } from "../../test-support/harness.js";

const examples = loadGithubExamples();
let issueNumber = 900;

/**
 * Spec: "when a tenant board is wired" the issue lanes keep tracking cards, and with a board
 * coordinator the card is the unit of work. The board is the team's setting (off, track,
 * coordinate); a webhook's deprecated `board_mode` other than off still wins.
 */
describe.each(storeKinds())("the team's board on %s", (kind) => {
  let w: ForgeWorld;
  beforeAll(async () => {
    w = await startForgeWorld(kind);
  });
  afterAll(() => w.close());

  const team = () => `/api/teams/${w.seed.team.id}`;
  const setBoard = async (mode: string) => expect((await w.seed.teamAdmin.api.patch(team(), { board_mode: mode })).status).toBe(200);
  const cardOf = async (ref: string) =>
    (await w.seed.member.api.get(`${team()}/board/cards`)).body.cards.find((c: { source_issue_ref: string }) => c.source_issue_ref === ref);

  /** A label applied to an open issue, as `provider` sends it (GitHub's example, GitLab's Issue Hook, Forgejo's GitHub-like shape). */
  const labeled = (provider: Forge) => {
    const n = ++issueNumber;
    if (provider === "forge_a") {
      const p = fixture("gitlab-issue-label-added") as Record<string, any>;
      const url = `https://forge.test/acme/widgets/-/issues/${n}`;
      Object.assign(p.object_attributes, { iid: n, id: 10_000 + n, url });
      return { event: "Issue Hook", payload: p, ref: url };
    }
    const p = githubExample(examples, "issues", "labeled") as Record<string, any>;
    const url = `https://forge.test/acme/widgets/issues/${n}`;
    Object.assign(p.repository, { full_name: "acme/widgets", clone_url: "https://forge.test/acme/widgets.git", default_branch: "main" });
    Object.assign(p.issue, { number: n, state: "open", html_url: url, title: "Sprockets are slow", body: "They take 2 s." });
    return { event: "issues", payload: p, ref: url };
  };
  const opened = (author: string | undefined, association?: string) => {
    const p = githubLikeIssueOpened(author, association) as Record<string, any>;
    const n = ++issueNumber;
    Object.assign(p.issue, { number: n, html_url: `https://forge.test/acme/widgets/issues/${n}` });
    return { payload: p, ref: p.issue.html_url as string };
  };

  it("is a team setting: off by default, shown on the team, set by a team admin (not a member), one of off, track, coordinate", async () => {
    expect((await w.seed.member.api.get(team())).body.board_mode).toBe("off");
    expect((await w.seed.member.api.patch(team(), { board_mode: "track" })).status).toBe(403);
    const bad = await w.seed.teamAdmin.api.patch(team(), { board_mode: "sometimes" });
    expect(bad.status).toBe(400);
    expect((await w.seed.member.api.get(team())).body.board_mode).toBe("off");
    // A team admin sets the board, not the org's fields.
    expect((await w.seed.teamAdmin.api.patch(team(), { board_mode: "track", max_concurrent_runs: 3 })).status).toBe(403);
    await setBoard("track");
    expect((await w.seed.member.api.get(team())).body.board_mode).toBe("track");
    await setBoard("off");
  });

  it.each(FORGES)("track on the team: a labeled issue on %s launches and its card follows the run, with no webhook field set", async (provider) => {
    await setBoard("track");
    try {
      const hook = await forgeHook(w, provider, { bot_ids: ["improve"] });
      const { event, payload, ref } = labeled(provider);
      const res = await deliver(w, hook, event, payload);
      expect(res.body).toMatchObject({ status: "launched" });
      expect(await cardOf(ref)).toMatchObject({ column: "running", provenance: "issue_label", run_id: res.body.run_id, bot: "improve" });
    } finally {
      await setBoard("off");
    }
  });

  it.each(FORGES)("coordinate on the team: a labeled issue on %s becomes a ready card (202) that the dispatcher launches", async (provider) => {
    await setBoard("coordinate");
    try {
      const hook = await forgeHook(w, provider, { bot_ids: ["improve"] });
      const { event, payload, ref } = labeled(provider);
      const res = await deliver(w, hook, event, payload);
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: "accepted", card_created: true });
      expect(await cardOf(ref)).toMatchObject({ id: res.body.card_id, column: "ready", run_id: null });
      expect((await w.t.services.boardDispatcher.dispatch()).get(res.body.card_id)).toBe("launched");
    } finally {
      await setBoard("off");
    }
  });

  it.each(FORGES)("off on the team and the webhook: a labeled issue on %s launches with no card", async (provider) => {
    const hook = await forgeHook(w, provider, { bot_ids: ["improve"] });
    const { event, payload, ref } = labeled(provider);
    expect((await deliver(w, hook, event, payload)).body.status).toBe("launched");
    expect(await cardOf(ref)).toBeUndefined();
  });

  it.each(["forge_b", "forge_c"] as const)(
    "puts an untrusted author's issue (%s) on the board as a needs:approval card whenever the team's board is on",
    async (provider) => {
      const hook = await forgeHook(w, provider, { auto_implement_on_open: true, bot_ids: ["improve"] });
      const off = opened(undefined);
      expect((await deliver(w, hook, "issues", off.payload)).body.status).toBe("filtered");
      expect(await cardOf(off.ref)).toBeUndefined();
      for (const mode of ["track", "coordinate"]) {
        await setBoard(mode);
        try {
          const { payload, ref } = opened(undefined);
          const res = await deliver(w, hook, "issues", payload);
          expect(res.body.status).toBe("filtered");
          expect(res.body.reason).toMatch(/card card_\w+ waits on the board for approval$/);
          expect(await cardOf(ref)).toMatchObject({ column: "ready", labels: ["needs:approval"], bot: "improve" });
        } finally {
          await setBoard("off");
        }
      }
    },
  );

  it("lets a webhook's explicit board_mode (deprecated) win over the team's", async () => {
    await setBoard("coordinate");
    try {
      const tracked = await forgeHook(w, "forge_b", { auto_implement_on_open: true, bot_ids: ["improve"], board_mode: "track" });
      const { payload, ref } = opened("maria", "MEMBER");
      const res = await deliver(w, tracked, "issues", payload);
      expect(res.body).toMatchObject({ status: "launched" });
      expect(await cardOf(ref)).toMatchObject({ column: "running", run_id: res.body.run_id });
      // A webhook left at off takes the team's coordinate.
      const plain = await forgeHook(w, "forge_b", { auto_implement_on_open: true, bot_ids: ["improve"] });
      const second = opened("maria", "MEMBER");
      expect((await deliver(w, plain, "issues", second.payload)).status).toBe(202);
    } finally {
      await setBoard("off");
    }
  });
});
