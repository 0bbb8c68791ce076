import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture } from "../../intake/fixtures/fixtures.js";
import { WORLD } from "../../test-support/fake-forges/world.js";
import {
  commandDelivery,
  deliver,
  deliveryRows,
  fakeOf,
  forgeHook,
  githubLikeReviewRequest,
  requestsSince,
  runOf,
  startForgeWorld,
  type ForgeWorld,
} from "../../test-support/forge-deliveries.js";
import { storeKinds } from "../../test-support/harness.js";

type GithubLike = "forge_b" | "forge_c";

/** A pull request opened by a developer, as GitHub (or Forgejo) sends it. */
function pullOpened(forge: GithubLike) {
  if (forge === "forge_c") return fixture("forgejo-pull-request-opened");
  const p = githubLikeReviewRequest(WORLD.bot.login, WORLD.maria.login);
  p.action = "opened";
  delete p.requested_reviewer;
  return p;
}

const cases = storeKinds().flatMap((kind) => (["forge_b", "forge_c"] as const).map((forge) => [kind, forge] as const));

/** Spec "Event selection defaults": an empty event_allowlist is the provider's defaults, not every event. */
describe.each(cases)("an empty event_allowlist on %s, %s", (kind, forge: GithubLike) => {
  let w: ForgeWorld;

  beforeAll(async () => {
    w = await startForgeWorld(kind);
  });
  afterAll(() => w.close());

  it("filters a command comment (issue_comment, not a default) that `*` launches, and launches a pull request", async () => {
    const fake = fakeOf(w, forge);
    const command = async (allowlist: string[]) => {
      const hook = await forgeHook(w, forge, { event_allowlist: allowlist });
      const d = commandDelivery(forge, "/re-review", WORLD.maria.login);
      const from = fake.requests.length;
      const res = await deliver(w, hook, d.event, d.payload);
      return { hook, res, calls: requestsSince(fake, from) };
    };
    // The same comment launches on a webhook that allows every event.
    const everything = await command(["*"]);
    expect(everything.res.body).toMatchObject({ status: "launched", bot: "review-pr" });

    const defaults = await command([]);
    expect(defaults.res.status).toBe(200);
    expect(defaults.res.body.status).toBe("filtered");
    expect(defaults.res.body.run_id).toBeUndefined();
    expect(defaults.calls).toEqual([]);
    const rows = await deliveryRows(w, defaults.hook);
    expect(rows.map((r) => [r.status, r.run_id ?? null])).toEqual([["filtered", null]]);
    const runs = await w.t.store.db.selectFrom("runs").select("id").where("webhook_id", "=", defaults.hook.id).execute();
    expect(runs).toEqual([]);

    const opened = await deliver(w, defaults.hook, "pull_request", pullOpened(forge));
    expect(opened.body).toMatchObject({ status: "launched", bot: "review-pr" });
    expect((await runOf(w, opened.body.run_id)).webhook_id).toBe(defaults.hook.id);
  });
});
