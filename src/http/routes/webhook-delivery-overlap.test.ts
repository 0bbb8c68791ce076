import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { OverlapStep } from "../../intake/pipeline/overlap.js";
import { WORLD } from "../../test-support/fake-forges/world.js";
import {
  commandDelivery,
  deliver,
  forgeHook,
  githubLikeReviewRequest,
  runOf,
  startForgeWorld,
  type ForgeWorld,
  type Hook,
} from "../../test-support/forge-deliveries.js";
import { storeKinds } from "../../test-support/harness.js";

/** `overlap` on (webhook, subject, bot), and rule 5's re-request folding into an in-flight review (forge_b). */
describe.each(storeKinds())("overlap on %s", (kind) => {
  let w: ForgeWorld;
  const reReview = (hook: Hook) => {
    const d = commandDelivery("forge_b", "/re-review", WORLD.maria.login);
    return deliver(w, hook, d.event, d.payload);
  };
  const opened = (hook: Hook) => {
    const p = githubLikeReviewRequest(WORLD.bot.login, WORLD.maria.login);
    p.action = "opened";
    return deliver(w, hook, "pull_request", p);
  };

  beforeAll(async () => {
    w = await startForgeWorld(kind);
  });
  afterAll(() => w.close());
  beforeEach(() => {
    w.t.clock.advance(60_000);
  });

  it("allow (the default) launches beside a run in flight", async () => {
    const hook = await forgeHook(w, "forge_b");
    const first = await reReview(hook);
    const second = await reReview(hook);
    expect([first.body.status, second.body.status]).toEqual(["launched", "launched"]);
  });

  it("skip launches nothing while the subject's run is in flight", async () => {
    const hook = await forgeHook(w, "forge_b", { overlap: "skip" });
    const first = await reReview(hook);
    const second = await reReview(hook);
    expect(second.body).toMatchObject({
      status: "filtered",
      reason: expect.stringMatching(`overlap skip: review-pr already runs on gh:${WORLD.repo}#7 \\(${first.body.run_id}\\)`),
    });
  });

  it("skip launches one run when deliveries for the pull request arrive together; the others are answered as skipped", async () => {
    const hook = await forgeHook(w, "forge_b", { overlap: "skip" });
    // Every delivery passes the check made before the launch (nothing in flight yet) before any launches.
    const n = 4;
    let checked = 0;
    let allChecked!: () => void;
    const barrier = new Promise<void>((resolve) => (allChecked = resolve));
    const apply = OverlapStep.prototype.apply;
    const spy = vi.spyOn(OverlapStep.prototype, "apply").mockImplementation(async function (this: OverlapStep, ...args) {
      const decision = await apply.apply(this, args);
      if (++checked === n) allChecked();
      await barrier;
      return decision;
    });
    const answers = await Promise.all(Array.from({ length: n }, () => reReview(hook))).finally(() => spy.mockRestore());
    expect(checked).toBe(n);
    const launched = answers.filter((a) => a.body.status === "launched");
    expect(launched).toHaveLength(1);
    for (const a of answers.filter((x) => x.body.status !== "launched")) {
      expect(a.status).toBe(200);
      expect(a.body).toMatchObject({
        status: "filtered",
        reason: expect.stringMatching(`overlap skip: review-pr already runs on gh:${WORLD.repo}#7 \\(${launched[0]!.body.run_id}\\)`),
      });
    }
    const runs = await w.t.store.db.selectFrom("runs").select("id").where("webhook_id", "=", hook.id).execute();
    expect(runs).toEqual([{ id: launched[0]!.body.run_id }]);
  });

  it("skip is per bot: one bot's run in flight does not hold another bot on the same pull request", async () => {
    const hook = await forgeHook(w, "forge_b", { overlap: "skip", bot_ids: ["review-pr", "improve"] });
    const review = await reReview(hook);
    expect(review.body).toMatchObject({ status: "launched", bot: "review-pr" });
    const d = commandDelivery("forge_b", "/improve", WORLD.maria.login);
    const improve = await deliver(w, hook, d.event, d.payload);
    expect(improve.body).toMatchObject({ status: "launched", bot: "improve" });
    expect((await reReview(hook)).body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/overlap skip: review-pr/) });
  });

  it("supersede launches and cancels the run in flight", async () => {
    const hook = await forgeHook(w, "forge_b", { overlap: "supersede" });
    const first = await reReview(hook);
    const second = await reReview(hook);
    expect(second.body.status).toBe("launched");
    expect((await runOf(w, first.body.run_id)).status).toBe("cancelled");
    expect((await runOf(w, second.body.run_id)).status).toBe("queued");
  });

  it("a redelivery under supersede is a duplicate and cancels nothing", async () => {
    const hook = await forgeHook(w, "forge_b", { overlap: "supersede" });
    const d = commandDelivery("forge_b", "/re-review", WORLD.maria.login);
    const first = await deliver(w, hook, d.event, d.payload);
    expect((await deliver(w, hook, d.event, d.payload)).body.status).toBe("duplicate");
    expect((await runOf(w, first.body.run_id)).status).toBe("queued");
  });

  it("a re-requested review folds into the review in flight on forge_b", async () => {
    const hook = await forgeHook(w, "forge_b");
    const review = await opened(hook);
    expect(review.body.status).toBe("launched");
    const click = await deliver(w, hook, "pull_request", githubLikeReviewRequest(WORLD.bot.login, WORLD.maria.login));
    expect(click.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/folded into the in-flight review/) });
  });

  it("with supersede a re-requested review replaces the one in flight", async () => {
    const hook = await forgeHook(w, "forge_b", { overlap: "supersede" });
    const review = await opened(hook);
    const click = await deliver(w, hook, "pull_request", githubLikeReviewRequest(WORLD.bot.login, WORLD.maria.login));
    expect(click.body.status).toBe("launched");
    expect((await runOf(w, review.body.run_id)).status).toBe("cancelled");
  });
});
