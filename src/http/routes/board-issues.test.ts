import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deliver,
  forgeHook,
  githubLikeComment,
  githubLikeIssueOpened,
  startForgeWorld,
  type ForgeWorld,
  type Hook,
} from "../../test-support/forge-deliveries.js";
import { WORLD } from "../../test-support/fake-forges/world.js";
import { storeKinds } from "../../test-support/harness.js";

let issueNumber = 300;

/** Spec: the issue lanes and a tenant board; `board_mode` track (a card follows the run) and coordinate (the card is the work). */
describe.each(storeKinds())("issue lanes and the board on %s", (kind) => {
  let w: ForgeWorld;
  beforeAll(async () => {
    w = await startForgeWorld(kind);
  });
  afterAll(() => w.close());

  const issue = (author: string | undefined, association?: string) => {
    const p = githubLikeIssueOpened(author, association) as Record<string, any>;
    const n = ++issueNumber;
    Object.assign(p.issue, { number: n, html_url: `https://forge.test/acme/widgets/issues/${n}` });
    return { payload: p, ref: p.issue.html_url as string };
  };
  const cardOf = async (ref: string) =>
    (await w.seed.member.api.get(`/api/teams/${w.seed.team.id}/board/cards`)).body.cards.find((c: { source_issue_ref: string }) => c.source_issue_ref === ref);
  const hookWith = (board_mode: string) => forgeHook(w, "forge_b", { auto_implement_on_open: true, bot_ids: ["improve"], board_mode });

  it("track: the trusted author's issue launches at once, and its card follows the run", async () => {
    const hook = await hookWith("track");
    const { payload, ref } = issue("maria", "MEMBER");
    const res = await deliver(w, hook, "issues", payload);
    expect(res.body).toMatchObject({ status: "launched" });
    expect(await cardOf(ref)).toMatchObject({
      column: "running",
      provenance: "issue_label",
      run_id: res.body.run_id,
      bot: "improve",
      title: "Sprockets are slow",
    });
  });

  it("coordinate: the issue becomes a ready card (202), once per issue, and the dispatcher launches it", async () => {
    const hook = await hookWith("coordinate");
    const { payload, ref } = issue("maria", "OWNER");
    const first = await deliver(w, hook, "issues", payload);
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ status: "accepted", card_created: true });
    const again = await deliver(w, hook, "issues", payload);
    expect(again.body).toMatchObject({ status: "accepted", card_id: first.body.card_id, card_created: false });
    expect(await cardOf(ref)).toMatchObject({ id: first.body.card_id, column: "ready", run_id: null });
    expect((await w.t.services.boardDispatcher.dispatch()).get(first.body.card_id)).toBe("launched");
    const card = await cardOf(ref);
    const run = (await w.seed.member.api.get(`/api/runs/${card.run_id}`)).body;
    expect(run).toMatchObject({ source: "board", actor: { kind: "board-dispatcher" }, bot_id: "improve" });
    expect(run.vars).toMatchObject({ source_issue_ref: ref, open_mr: "true" });
  });

  it("coordinate: a delivery the gate's pre-check refuses puts no card on the board and records its launch_error", async () => {
    const hook = await hookWith("coordinate");
    const { payload, ref } = issue("maria", "OWNER");
    const team = `/api/teams/${w.seed.team.id}`;
    expect((await w.seed.admin.patch(team, { status: "suspended" })).status).toBe(200);
    try {
      const res = await deliver(w, hook, "issues", payload);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: "team_suspended" });
      expect(await cardOf(ref)).toBeUndefined();
    } finally {
      await w.seed.admin.patch(team, { status: "active" });
    }
  });

  it("parks an untrusted author's issue as a needs:approval card that a team admin's approval lets the dispatcher launch", async () => {
    const hook = await hookWith("track");
    const { payload, ref } = issue(undefined);
    const res = await deliver(w, hook, "issues", payload);
    expect(res.body.status).toBe("filtered");
    expect(res.body.reason).toMatch(/untrusted \(needs:approval\); card card_\w+ waits on the board for approval$/);
    const card = await cardOf(ref);
    expect(card).toMatchObject({ column: "ready", labels: ["needs:approval"] });
    expect((await w.t.services.boardDispatcher.dispatch()).get(card.id)).toBeUndefined();
    expect((await w.seed.teamAdmin.api.post(`/api/teams/${w.seed.team.id}/board/cards/${card.id}/approve`)).status).toBe(200);
    expect((await w.t.services.boardDispatcher.dispatch()).get(card.id)).toBe("launched");
  });

  it("parks the issue of an author the forge gives no role the same way (coordinate)", async () => {
    const hook = await hookWith("coordinate");
    const { payload, ref } = issue("mallory", "NONE");
    const res = await deliver(w, hook, "issues", payload);
    expect(res.body.status).toBe("filtered");
    expect(res.body.reason).toMatch(/^issue author mallory is not trusted: .*\(none\); card card_\w+ waits on the board for approval$/);
    expect(await cardOf(ref)).toMatchObject({ column: "ready", labels: ["needs:approval"], bot: "improve" });
  });

  /** `/approve` on the issue, by a developer the fake forge gives write. */
  const approveOnForge = (hook: Hook, payload: Record<string, any>) => {
    const c = githubLikeComment("forge_b", "/approve looks fine", WORLD.maria.login, { onIssue: true });
    Object.assign(c.issue, { number: payload.issue.number, html_url: payload.issue.html_url, title: payload.issue.title, body: payload.issue.body });
    return deliver(w, hook, "issue_comment", c);
  };
  const runsOfIssue = async (ref: string) =>
    (await w.seed.member.api.get(`/api/teams/${w.seed.team.id}/runs?limit=500`)).body.runs.filter(
      (r: { vars: Record<string, string> }) => r.vars.source_issue_ref === ref,
    );

  it("track: a card approved on the board is not launched again by /approve on the forge", async () => {
    const hook = await hookWith("track");
    const { payload, ref } = issue(undefined);
    await deliver(w, hook, "issues", payload);
    const card = await cardOf(ref);
    expect((await w.seed.teamAdmin.api.post(`/api/teams/${w.seed.team.id}/board/cards/${card.id}/approve`)).status).toBe(200);
    expect((await w.t.services.boardDispatcher.dispatch()).get(card.id)).toBe("launched");
    const res = await approveOnForge(hook, payload);
    expect(res.body).toMatchObject({ status: "filtered", reason: `card ${card.id} is not waiting for an approval: the board launches the issue` });
    expect(await runsOfIssue(ref)).toHaveLength(1);
  });

  it.each(["track", "coordinate"])("%s: /approve on the forge approves the waiting card, which the dispatcher launches once", async (mode) => {
    const hook = await hookWith(mode);
    const { payload, ref } = issue(undefined);
    await deliver(w, hook, "issues", payload);
    const card = await cardOf(ref);
    const res = await approveOnForge(hook, payload);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: "accepted", card_id: card.id, card_created: false });
    expect(await cardOf(ref)).toMatchObject({ column: "ready", labels: [], provenance: "approved" });
    expect((await w.t.services.boardDispatcher.dispatch()).get(card.id)).toBe("launched");
    const [run] = await runsOfIssue(ref);
    expect(run.vars).toMatchObject({ approved_by: WORLD.maria.login, approval_reason: "looks fine", card_id: card.id });
    expect((await approveOnForge(hook, payload)).body.status).toBe("filtered");
    expect((await w.seed.teamAdmin.api.post(`/api/teams/${w.seed.team.id}/board/cards/${card.id}/approve`)).status).toBe(409);
    expect(await runsOfIssue(ref)).toHaveLength(1);
  });

  it("leaves the board alone when board_mode is off", async () => {
    const hook = await hookWith("off");
    const { payload, ref } = issue("maria", "MEMBER");
    expect((await deliver(w, hook, "issues", payload)).body.status).toBe("launched");
    expect(await cardOf(ref)).toBeUndefined();
  });
});
