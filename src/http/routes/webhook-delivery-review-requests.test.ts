import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WORLD } from "../../test-support/fake-forges/world.js";
import {
  deliver,
  fakeOf,
  FORGES,
  forgeHook,
  githubLikeReviewRequest,
  gitlabReviewerUpdate,
  requestsSince,
  startForgeWorld,
  type Forge,
  type ForgeWorld,
  type Hook,
} from "../../test-support/forge-deliveries.js";
import { storeKinds } from "../../test-support/harness.js";

const cases = storeKinds().flatMap((kind) => FORGES.map((forge) => [kind, forge] as const));

/** Review lane rule 5, on each forge: a re-requested review of the bot's identity (rule 6). */
describe.each(cases)("re-requested reviews on %s, %s", (kind, forge: Forge) => {
  let w: ForgeWorld;
  const click = (reviewer: string, by: string, updatedAt?: string) =>
    forge === "forge_a"
      ? {
          event: "Merge Request Hook",
          payload: gitlabReviewerUpdate(reviewer, by, "re_requested", updatedAt === undefined ? undefined : `2024-03-05 ${updatedAt} UTC`),
        }
      : { event: "pull_request", payload: githubLikeReviewRequest(reviewer, by, updatedAt === undefined ? undefined : `2026-11-21T${updatedAt}Z`) };
  const send = async (hook: Hook, c: { event: string; payload: unknown }) => {
    const from = fakeOf(w, forge).requests.length;
    const res = await deliver(w, hook, c.event, c.payload);
    return { res, calls: requestsSince(fakeOf(w, forge), from) };
  };

  beforeAll(async () => {
    w = await startForgeWorld(kind);
  });
  afterAll(() => w.close());
  beforeEach(() => {
    w.t.clock.advance(60_000);
  });

  it("the plain automatic path (PR or MR opened) makes no forge call", async () => {
    const hook = await forgeHook(w, forge);
    const c = click(WORLD.bot.login, WORLD.maria.login);
    const p = c.payload as Record<string, any>;
    if (forge === "forge_a") {
      p.object_attributes.action = "open";
      delete p.changes;
    } else p.action = "opened";
    const { res, calls } = await send(hook, c);
    expect(res.body).toMatchObject({ status: "launched", bot: "review-pr" });
    expect(calls).toEqual([]);
  });

  it("a developer's click on the bot launches the review bot; the same delivery again is a duplicate", async () => {
    const hook = await forgeHook(w, forge);
    const c = click(WORLD.bot.login, WORLD.maria.login);
    const { res, calls } = await send(hook, c);
    expect(res.body).toMatchObject({ status: "launched", bot: "review-pr" });
    expect(calls.some((x) => /permission|members/.test(x))).toBe(true);
    expect((await send(hook, c)).res.body).toMatchObject({ status: "duplicate", run_id: res.body.run_id });
  });

  it("is repeatable: a later click (a new updated_at) on the same head reviews again", async () => {
    const hook = await forgeHook(w, forge);
    const first = await send(hook, click(WORLD.bot.login, WORLD.maria.login, "10:00:00"));
    // The head's review finished (on forge_b a click while it runs folds into it).
    const done = await w.seed.teamAdmin.api.post(`/api/runs/${first.res.body.run_id}/cancel`);
    expect(done.status).toBe(200);
    const later = await send(hook, click(WORLD.bot.login, WORLD.maria.login, "11:00:00"));
    expect(later.res.body).toMatchObject({ status: "launched" });
    expect(later.res.body.run_id).not.toBe(first.res.body.run_id);
  });

  it("a login on review_request_logins is the bot's identity too", async () => {
    const hook = await forgeHook(w, forge, { review_request_logins: ["@review-team-bot"] });
    expect((await send(hook, click("review-team-bot", WORLD.maria.login))).res.body).toMatchObject({ status: "launched" });
  });

  it("a review requested from someone else does not trigger, without a forge call", async () => {
    const hook = await forgeHook(w, forge);
    const { res, calls } = await send(hook, click("bob", WORLD.maria.login));
    expect(res.body.status).toBe("filtered");
    expect(calls).toEqual([]);
  });

  it("never self-triggering: the bot requesting itself is ignored", async () => {
    const hook = await forgeHook(w, forge);
    const { res } = await send(hook, click(WORLD.bot.login, WORLD.bot.login));
    expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/bot's own identity/) });
  });

  it("an unauthorised click is filtered: no automatic lane admits it", async () => {
    const hook = await forgeHook(w, forge);
    const { res } = await send(hook, click(WORLD.bot.login, "drive-by"));
    expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/drive-by: .*no automatic lane admits this event/) });
  });

  it("is not exempt from hold labels", async () => {
    const hook = await forgeHook(w, forge, { hold_labels: ["backend", "do-not-review"] });
    const c = click(WORLD.bot.login, WORLD.maria.login);
    const p = c.payload as Record<string, any>;
    if (forge === "forge_a") p.labels = [{ title: "do-not-review" }];
    else p.pull_request.labels = [{ name: "do-not-review" }];
    expect((await send(hook, c)).res.body).toMatchObject({ status: "filtered", reason: "held by label: do-not-review" });
  });

  it("a forge failure checking the clicker is a launch_error", async () => {
    const hook = await forgeHook(w, forge);
    fakeOf(w, forge).fault({ match: /permission|members|users/, status: 503 });
    const { res } = await send(hook, click(WORLD.bot.login, "someone-new"));
    fakeOf(w, forge).clearFaults();
    expect(res.body).toMatchObject({ status: "launch_error", reason: expect.stringMatching(/checking someone-new's permission: forge_unavailable/) });
  });
});
