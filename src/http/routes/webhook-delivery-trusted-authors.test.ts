import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WORLD } from "../../test-support/fake-forges/world.js";
import {
  deliver,
  fakeOf,
  forgeHook,
  githubLikeComment,
  githubLikeIssueOpened,
  requestsSince,
  runOf,
  startForgeWorld,
  type ForgeWorld,
  type Hook,
} from "../../test-support/forge-deliveries.js";
import { storeKinds } from "../../test-support/harness.js";

const cases = storeKinds().flatMap((kind) => (["forge_b", "forge_c"] as const).map((forge) => [kind, forge] as const));

/** forge_b (and forge_c's same wire shape) `issues` opened with auto_implement_on_open: only a trusted author launches. */
describe.each(cases)("issues opened by a trusted author on %s, %s", (kind, forge) => {
  let w: ForgeWorld;
  const open = async (hookFields: Record<string, unknown>, author: string | undefined, association?: string) => {
    const hook = await forgeHook(w, forge, { auto_implement_on_open: true, bot_ids: ["improve"], ...hookFields });
    const from = fakeOf(w, forge).requests.length;
    const res = await deliver(w, hook, "issues", githubLikeIssueOpened(author, association));
    return { res, calls: requestsSince(fakeOf(w, forge), from) };
  };

  beforeAll(async () => {
    w = await startForgeWorld(kind);
  });
  afterAll(() => w.close());
  beforeEach(() => {
    w.t.clock.advance(60_000);
    fakeOf(w, forge).clearFaults();
  });

  it.each(["OWNER", "MEMBER", "COLLABORATOR"])("author_association %s is trusted without a forge call", async (association) => {
    const { res, calls } = await open({}, "newcomer", association);
    expect(res.body).toMatchObject({ status: "launched", bot: "improve" });
    expect((await runOf(w, res.body.run_id)).vars).toMatchObject({ open_mr: "true", feature_prompt: "Sprockets are slow\n\nThey take 2 s." });
    expect(calls).toEqual([]);
  });

  it("an author on author_allowlist is trusted without a forge call", async () => {
    const { res, calls } = await open({ author_allowlist: ["Newcomer"] }, "newcomer", "NONE");
    expect(res.body.status).toBe("launched");
    expect(calls).toEqual([]);
  });

  it("otherwise a live role at least min_replier_role is asked for", async () => {
    const { res, calls } = await open({}, WORLD.maria.login, "NONE");
    expect(res.body.status).toBe("launched");
    expect(calls).toHaveLength(1);
  });

  it("an author below the role is untrusted: filtered with a visible reason", async () => {
    const { res } = await open({}, "newcomer", "CONTRIBUTOR");
    expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/issue author newcomer is not trusted.*needs:approval/) });
  });

  it.runIf(forge === "forge_c")("a Forgejo author (no author_association in its payloads) below the role is filtered after one permission call", async () => {
    w.forgejo.users.set("reader", { login: "reader", id: 78 });
    w.forgejo.access.set(`${WORLD.repo}\nreader`, "read");
    const { res, calls } = await open({}, "reader");
    expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/issue author reader is not trusted/) });
    expect(calls).toHaveLength(1);
  });

  it("an author the payload does not name is untrusted (fail closed)", async () => {
    const { res, calls } = await open({}, undefined);
    expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/untrusted/) });
    expect(calls).toEqual([]);
  });

  it("a forge failure asking the role is a launch_error", async () => {
    fakeOf(w, forge).fault({ match: /permission/, status: 500 });
    const { res } = await open({}, "someone-else", "NONE");
    expect(res.body).toMatchObject({ status: "launch_error", reason: expect.stringMatching(/checking someone-else's permission/) });
  });

  it("off unless auto_implement_on_open", async () => {
    const { res } = await open({ auto_implement_on_open: false }, "newcomer", "OWNER");
    expect(res.body).toMatchObject({ status: "filtered", reason: "issues opened: auto_implement_on_open is off" });
  });

  describe("the approve subcommand releases an issue held for approval", () => {
    const approve = async (hook: Hook, body: string, by: string) => {
      const c = githubLikeComment(forge, body, by, { onIssue: true });
      Object.assign(c.issue, { number: 3, title: "Sprockets are slow", body: "They take 2 s." });
      return deliver(w, hook, "issue_comment", c);
    };
    const heldHook = async (fields: Record<string, unknown> = {}) => {
      const hook = await forgeHook(w, forge, { auto_implement_on_open: true, bot_ids: ["improve"], ...fields });
      const opened = await deliver(w, hook, "issues", githubLikeIssueOpened("newcomer", "NONE"));
      // Untrusted (needs:approval), or held by a label.
      expect(opened.body.reason).toMatch(/needs:approval|held/);
      return hook;
    };

    it("a developer's /approve <reason> launches the held lane once, with who approved and why", async () => {
      const hook = await heldHook();
      const res = await approve(hook, "/approve small and clear", WORLD.maria.login);
      expect(res.body).toMatchObject({ status: "launched", bot: "improve" });
      expect((await runOf(w, res.body.run_id)).vars).toMatchObject({
        approved_by: WORLD.maria.login,
        approval_reason: "small and clear",
        feature_prompt: "Sprockets are slow\n\nThey take 2 s.",
        open_mr: "true",
      });
      expect((await approve(hook, "/improve approve", WORLD.maria.login)).body).toMatchObject({ status: "duplicate", run_id: res.body.run_id });
    });

    it("hold labels do not stop a manual approval", async () => {
      const hook = await heldHook({ hold_labels: ["*"] });
      expect((await approve(hook, "/approve", WORLD.maria.login)).body.status).toBe("launched");
    });

    it("someone without the role cannot approve", async () => {
      const hook = await heldHook();
      expect((await approve(hook, "/approve", "newcomer")).body).toMatchObject({
        status: "filtered",
        reason: expect.stringMatching(/newcomer: not on authorized_repliers/),
      });
    });

    it("a forge failure checking the approver is a launch_error", async () => {
      const hook = await heldHook();
      fakeOf(w, forge).fault({ match: /permission/, status: 502 });
      expect((await approve(hook, "/approve", "someone-third")).body).toMatchObject({ status: "launch_error" });
    });

    it("nothing waits for an approval without auto_implement_on_open", async () => {
      const hook = await forgeHook(w, forge, { bot_ids: ["improve"] });
      expect((await approve(hook, "/approve", WORLD.maria.login)).body).toMatchObject({
        status: "filtered",
        reason: "/approve approve: nothing waits for an approval (auto_implement_on_open is off)",
      });
    });
  });
});
