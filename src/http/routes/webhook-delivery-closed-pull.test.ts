import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture, githubExample, loadGithubExamples } from "../../intake/fixtures/fixtures.js";
import { WORLD } from "../../test-support/fake-forges/world.js";
import { commandDelivery, deliver, forgeHook, runOf, startForgeWorld, type ForgeWorld } from "../../test-support/forge-deliveries.js";
import { storeKinds } from "../../test-support/harness.js";

const examples = loadGithubExamples();

/** GitHub's `pull_request` closed example (or Forgejo's), for the world's pull request. */
function pullClosed(forge: "forge_b" | "forge_c") {
  const p = (forge === "forge_b" ? githubExample(examples, "pull_request", "closed") : fixture("forgejo-pull-request-closed")) as Record<string, any>;
  Object.assign(p.repository, { id: WORLD.repoId, full_name: WORLD.repo, default_branch: "main" });
  const repo = { id: WORLD.repoId, full_name: WORLD.repo };
  Object.assign(p.pull_request, { number: WORLD.number, state: "closed" });
  Object.assign(p.pull_request.head, { sha: WORLD.headSha, ref: WORLD.headRef, repo });
  Object.assign(p.pull_request.base, { ref: WORLD.baseRef, repo });
  p.number = WORLD.number;
  return p;
}

const cases = storeKinds().flatMap((kind) => (["forge_b", "forge_c"] as const).map((forge) => [kind, forge] as const));

/** Spec: a closed pull request stops every run bound to it, those its comments launched included. */
describe.each(cases)("closing a pull request on %s, %s", (kind, forge) => {
  let w: ForgeWorld;

  beforeAll(async () => {
    w = await startForgeWorld(kind);
  });
  afterAll(() => w.close());

  it("cancels the runs its comments launched: a review by command and a question bound under it", async () => {
    const hook = await forgeHook(w, forge);
    const comment = (body: string) => {
      const d = commandDelivery(forge, body, WORLD.maria.login);
      return deliver(w, hook, d.event, d.payload);
    };
    const review = await comment("/re-review");
    expect(review.body).toMatchObject({ status: "launched", bot: "review-pr" });
    const question = await comment("/re-review why take this lock?");
    expect(question.body).toMatchObject({ status: "launched", bot: "converse" });
    // The question is bound to its comment, under the pull request.
    const asked = await runOf(w, question.body.run_id);
    expect(asked.subject_id).not.toBe(asked.parent_subject_id);
    expect(asked.parent_subject_id).toBe((await runOf(w, review.body.run_id)).subject_id);
    for (const id of [review.body.run_id, question.body.run_id]) expect((await runOf(w, id)).status).toBe("queued");

    const closed = await deliver(w, hook, "pull_request", pullClosed(forge));
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ status: "filtered", stopped: 2 });
    for (const id of [review.body.run_id, question.body.run_id]) expect((await runOf(w, id)).status).toBe("cancelled");
  });
});
