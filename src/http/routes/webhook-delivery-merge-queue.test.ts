import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WORLD } from "../../test-support/fake-forges/world.js";
import { deliver, forgeHook, githubDequeued, requestsSince, runOf, startForgeWorld, type ForgeWorld } from "../../test-support/forge-deliveries.js";
import { storeKinds } from "../../test-support/harness.js";

/** GitHub's merge queue ejecting a pull request for a healable reason: the branch-improvement bot once per head SHA. */
describe.each(storeKinds())("merge-queue ejection on %s", (kind) => {
  let w: ForgeWorld;
  beforeAll(async () => {
    w = await startForgeWorld(kind);
  });
  afterAll(() => w.close());

  it("a healable reason launches the branch-improvement bot on the head branch, once per head SHA, with no forge call", async () => {
    const hook = await forgeHook(w, "forge_b");
    const from = w.github.server.requests.length;
    const first = await deliver(w, hook, "pull_request", githubDequeued("MERGE_CONFLICT"));
    expect(first.body).toMatchObject({ status: "launched", bot: "improve" });
    const run = await runOf(w, first.body.run_id);
    expect(run.repo_ref).toBe(WORLD.headRef);
    expect(run.vars).toMatchObject({ heal_reason: "merge_conflict" });
    expect((await deliver(w, hook, "pull_request", githubDequeued("CI_FAILURE"))).body).toMatchObject({ status: "duplicate" });
    expect((await deliver(w, hook, "pull_request", githubDequeued("CI_FAILURE", "b".repeat(40)))).body).toMatchObject({ status: "launched" });
    expect(requestsSince(w.github.server, from)).toEqual([]);
  });

  it.each([
    ["a reason no commit heals", {}, githubDequeued("MANUAL"), /not healable/],
    ["without the bot in bot_ids", { bot_ids: ["review-pr"] }, githubDequeued("CI_FAILURE"), /improve bot is not in bot_ids/],
    ["held", { hold_labels: ["backend"] }, githubDequeued("CI_FAILURE"), /held by label/],
  ])("%s is filtered", async (_name, fields, payload, reason) => {
    const hook = await forgeHook(w, "forge_b", fields);
    if (reason.source === "held by label") payload.pull_request.labels = [{ name: "backend" }];
    expect((await deliver(w, hook, "pull_request", payload)).body).toMatchObject({ status: "filtered", reason: expect.stringMatching(reason) });
  });

  it("a fork is never healed", async () => {
    const hook = await forgeHook(w, "forge_b");
    const payload = githubDequeued("CI_FAILURE");
    payload.pull_request.head.repo = { id: WORLD.fork.id, full_name: WORLD.fork.fullName };
    expect((await deliver(w, hook, "pull_request", payload)).body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/^fork/) });
  });
});
