import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WORLD } from "../../test-support/fake-forges/world.js";
import {
  commandDelivery,
  deliver,
  deliveryRows,
  fakeOf,
  FORGES,
  forgeHook,
  requestsSince,
  runOf,
  startForgeWorld,
  type Forge,
  type ForgeWorld,
} from "../../test-support/forge-deliveries.js";
import { storeKinds } from "../../test-support/harness.js";

const cases = storeKinds().flatMap((kind) => FORGES.map((forge) => [kind, forge] as const));

/** Spec forge_a Note Hook and forge_b/forge_c issue_comment: the command registry, gated and proven through the forge API. */
/** The state a case puts the fake forge's pull request 7 in: open (or closed), from the repository itself (or a fork). */
type PullState = { state?: "closed"; forkHead?: boolean };

function setGithubLikePull(pull: { state: string; headRepo: { id: number; fullName: string } | null }, change: PullState): void {
  pull.state = change.state ?? "open";
  pull.headRepo = change.forkHead ? { id: WORLD.fork.id, fullName: WORLD.fork.fullName } : { id: WORLD.repoId, fullName: WORLD.repo };
}

function setMergeRequest(mr: { state: string; sourceProjectId: number }, change: PullState): void {
  mr.state = change.state === "closed" ? "closed" : "opened";
  mr.sourceProjectId = change.forkHead ? WORLD.fork.id : WORLD.repoId;
}

describe.each(cases)("slash commands on %s, %s", (kind, forge: Forge) => {
  let w: ForgeWorld;
  const fake = () => fakeOf(w, forge);
  const command = async (hookFields: Record<string, unknown>, body: string, by: string = WORLD.maria.login, over = {}) => {
    const hook = await forgeHook(w, forge, hookFields);
    const d = commandDelivery(forge, body, by, over);
    const from = fake().requests.length;
    const res = await deliver(w, hook, d.event, d.payload);
    return { hook, res, calls: requestsSince(fake(), from), d };
  };
  /** Grants `login` a role on the fake forge, in its own words. */
  const grant = (login: string, role: "read" | "write") => {
    if (forge === "forge_b") w.github.roles.set(`${WORLD.repo}\n${login}`, role);
    if (forge === "forge_c") {
      w.forgejo.users.set(login, { login, id: 77 });
      w.forgejo.access.set(`${WORLD.repo}\n${login}`, role);
    }
    if (forge === "forge_a") {
      w.gitlab.users.set(login, { login, id: 77 });
      w.gitlab.accessLevels.set(`${WORLD.repoId}\n77`, role === "read" ? 10 : 30);
    }
  };
  const setPull = (change: PullState) => {
    if (forge === "forge_a") setMergeRequest(w.gitlab.mergeRequests.get(`${WORLD.repoId}!${WORLD.number}`)!, change);
    else setGithubLikePull(forge === "forge_b" ? w.github.pull() : w.forgejo.pulls.get(`${WORLD.repo}#${WORLD.number}`)!, change);
  };

  beforeAll(async () => {
    w = await startForgeWorld(kind);
  });
  afterAll(() => w.close());
  beforeEach(() => {
    // Past the permission cache's few seconds: each case sees the roles it sets.
    w.t.clock.advance(60_000);
    setPull({});
    fake().clearFaults();
  });

  it("a bare /re-review by a developer launches the review bot with re_review=true", async () => {
    const { res, calls } = await command({}, "/re-review", WORLD.maria.login);
    expect(res).toMatchObject({ status: 200, body: { status: "launched", bot: "review-pr" } });
    const run = await runOf(w, res.body.run_id);
    expect(run.vars).toMatchObject({ re_review: "true", trigger_command: "re-review", trigger_args: "", replier: WORLD.maria.login, base_ref: WORLD.baseRef });
    expect(run.repo_ref).toBe(WORLD.headRef);
    const scope = forge === "forge_a" ? 'MR !7 "Add viewport meta tag"' : 'PR #7 "Faster sprockets"';
    expect(run.vars.scope_notes).toBe(`${scope}: ${WORLD.headRef} into ${WORLD.baseRef}`);
    // The replier's permission, then the pull request; nothing is posted.
    expect(calls.some((c) => /permission|members/.test(c))).toBe(true);
    expect(calls.every((c) => c.startsWith("GET "))).toBe(true);
  });

  it("/re-review with a question launches the converse bot with trigger_args and no re_review", async () => {
    const { res } = await command({}, "> earlier text\n\n/re-review why take this lock?");
    expect(res.body).toMatchObject({ status: "launched", bot: "converse" });
    const run = await runOf(w, res.body.run_id);
    expect(run.vars).toMatchObject({ trigger_command: "re-review", trigger_args: "why take this lock?", replier: WORLD.maria.login });
    expect(run.vars.re_review).toBeUndefined();
  });

  it("/improve launches the branch-improvement bot on the pull request's own branch, seeded with the bot's review", async () => {
    const { res } = await command({}, "/improve");
    expect(res.body).toMatchObject({ status: "launched", bot: "improve" });
    const run = await runOf(w, res.body.run_id);
    expect(run.repo_ref).toBe(WORLD.headRef);
    expect(run.vars.open_mr).toBeUndefined();
    expect(run.vars.prior_review).toBe(WORLD.review);
  });

  it("/improve without a review by the bot carries no prior_review, and launches when the forge cannot list reviews", async () => {
    const key = forge === "forge_a" ? `${WORLD.repoId}!${WORLD.number}` : `${WORLD.repo}#${WORLD.number}`;
    const reviews: Map<string, { author: { login: string } }[]> =
      forge === "forge_a" ? w.gitlab.mrNotes : forge === "forge_b" ? w.github.reviews : w.forgejo.reviews;
    const before = reviews.get(key) ?? [];
    reviews.set(
      key,
      before.filter((r) => r.author.login !== WORLD.bot.login),
    );
    const none = await command({}, "/improve");
    reviews.set(key, before);
    expect(none.res.body.status).toBe("launched");
    expect((await runOf(w, none.res.body.run_id)).vars.prior_review).toBeUndefined();
    fake().fault({ match: /reviews|notes\?/, status: 500 });
    const failed = await command({}, "/improve");
    expect(failed.res.body).toMatchObject({ status: "launched", bot: "improve" });
    expect((await runOf(w, failed.res.body.run_id)).vars.prior_review).toBeUndefined();
  });

  it("/re-review carries no prior_review and asks for no review", async () => {
    const { res, calls } = await command({}, "/re-review");
    expect((await runOf(w, res.body.run_id)).vars.prior_review).toBeUndefined();
    expect(calls.some((c) => /reviews|notes\?/.test(c))).toBe(false);
  });

  it("/improve with branch_improve_as_pr opens a separate PR onto the source branch", async () => {
    const { res } = await command({ branch_improve_as_pr: true }, "/improve");
    const run = await runOf(w, res.body.run_id);
    expect(run.vars).toMatchObject({ open_mr: "true", mr_base: WORLD.headRef });
  });

  it("a mention mid-text never triggers a command", async () => {
    const { res, calls } = await command({ bot_ids: ["review-pr", "improve"] }, "please /re-review this");
    // On GitLab a plain note is a thread reply, which needs the converse bot.
    const reason = forge === "forge_a" ? /converse bot is not in bot_ids/ : /not a command/;
    expect(res).toMatchObject({ status: 200, body: { status: "filtered", reason: expect.stringMatching(reason) } });
    expect(calls).toEqual([]);
  });

  it.each([
    ["an unknown command", "/frobnicate now", /^unknown command: \/frobnicate$/],
    ["the approve subcommand on a pull request", "/re-review approve looks fine", /approve: nothing waits for an approval on a pull request/],
  ])("%s is filtered without a forge call", async (_name, body, reason) => {
    const { res, calls } = await command({}, body);
    expect(res).toMatchObject({ status: 200, body: { status: "filtered", reason: expect.stringMatching(reason) } });
    expect(calls).toEqual([]);
  });

  it("the bot's own comment is ignored without a forge call (loop guard)", async () => {
    const { res, calls } = await command({}, "/re-review", WORLD.bot.login);
    expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/bot's own identity/) });
    expect(calls).toEqual([]);
  });

  it("the bot's own comment in another letter case is its own too: ignored without a forge call", async () => {
    for (const login of [WORLD.bot.login.toUpperCase(), WORLD.bot.login.replace(/^./, (c) => c.toUpperCase())]) {
      expect(login).not.toBe(WORLD.bot.login);
      const { res, calls } = await command({}, "/re-review", login);
      expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/bot's own identity/) });
      expect(calls).toEqual([]);
    }
  });

  it("a read-only user is refused", async () => {
    grant("rita", "read");
    const { res, hook } = await command({}, "/re-review", "rita");
    expect(res.body).toMatchObject({
      status: "filtered",
      reason: expect.stringMatching(/rita: not on authorized_repliers and repository role below developer/),
    });
    expect((await deliveryRows(w, hook))[0]).toMatchObject({ status: "filtered", run_id: null });
  });

  it("a stranger the forge does not know is refused", async () => {
    const { res } = await command({}, "/re-review", "stranger");
    expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/role below developer \(none\)/) });
  });

  it("min_replier_role raises the bar: a developer is refused below maintainer", async () => {
    const { res } = await command({ min_replier_role: "maintainer" }, "/re-review");
    expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/role below maintainer \(developer\)/) });
  });

  it("an allow-listed replier is admitted without a permission call", async () => {
    const { res, calls } = await command({ authorized_repliers: ["@Outside-Helper"] }, "/re-review", "outside-helper");
    expect(res.body).toMatchObject({ status: "launched", bot: "review-pr" });
    expect(calls.some((c) => /permission|members|users/.test(c))).toBe(false);
  });

  it("a manual command still works on a held pull request (hold labels hold the automatic lanes only)", async () => {
    const { res } = await command({ hold_labels: ["*"] }, "/re-review");
    expect(res.body).toMatchObject({ status: "launched", bot: "review-pr" });
  });

  it("a manual /re-review still forces a review of a PR the bot opened", async () => {
    if (forge === "forge_a") w.gitlab.mergeRequests.get(`${WORLD.repoId}!${WORLD.number}`)!.author = { ...WORLD.bot };
    else if (forge === "forge_b") w.github.pull().author = { ...WORLD.bot };
    else w.forgejo.pulls.get(`${WORLD.repo}#${WORLD.number}`)!.author = { ...WORLD.bot };
    const { res } = await command({}, "/re-review");
    expect(res.body).toMatchObject({ status: "launched", bot: "review-pr" });
  });

  it("a fork proven by repository id is refused", async () => {
    setPull({ forkHead: true });
    const { res } = await command({}, "/re-review");
    expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/fork proven by repository id/) });
  });

  it.runIf(forge !== "forge_a")("an open pull request whose head repository was deleted is refused as unproven (a fork)", async () => {
    const pull = forge === "forge_b" ? w.github.pull() : w.forgejo.pulls.get(`${WORLD.repo}#${WORLD.number}`)!;
    pull.state = "open";
    pull.headRepo = null;
    const { res, hook } = await command({}, "/re-review");
    expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/fork proven by repository id \(head deleted/) });
    expect((await deliveryRows(w, hook))[0]).toMatchObject({ status: "filtered", run_id: null });
    setPull({});
  });

  it("a pull request the forge says is closed is refused", async () => {
    setPull({ state: "closed" });
    const { res } = await command({}, "/improve");
    expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/is closed/) });
  });

  it("a forge 500 gives launch_error naming the cause: nothing launched, nothing posted", async () => {
    fake().fault({ match: /pulls\/7$|merge_requests\/7$/, status: 500, times: 3 });
    const { res, hook, calls } = await command({}, "/re-review");
    expect(res).toMatchObject({
      status: 200,
      body: { status: "launch_error", reason: expect.stringMatching(/forge failed while resolving pull request 7: forge_unavailable/) },
    });
    const [row] = await deliveryRows(w, hook);
    expect(row).toMatchObject({ status: "launch_error", run_id: null });
    expect(w.t.logs.some((l) => l.includes("forge check failed") && l.includes(hook.id) && !l.includes(`tok-${forge}`))).toBe(true);
    expect(calls.filter((c) => !c.startsWith("GET "))).toEqual([]);
  });

  it("a failed permission lookup for the replier is a launch_error: nothing launched, nothing posted", async () => {
    grant("newcomer", "write");
    fake().fault({ match: /permission|members|users/, status: 503 });
    const { res, hook, calls } = await command({}, "/re-review", "newcomer");
    fake().clearFaults();
    expect(res.body).toMatchObject({ status: "launch_error", reason: expect.stringMatching(/checking newcomer's permission: forge_unavailable/) });
    expect((await deliveryRows(w, hook))[0]).toMatchObject({ status: "launch_error", run_id: null });
    expect(calls.filter((c) => !c.startsWith("GET "))).toEqual([]);
  });

  it.runIf(forge === "forge_a")("a forge that does not answer in time is a launch_error, and the delivery is still answered", async () => {
    fake().fault({ match: /merge_requests\/7$/, delayMs: 8_000 });
    const { res } = await command({}, "/re-review");
    expect(res.body).toMatchObject({ status: "launch_error", reason: expect.stringMatching(/resolving pull request 7: forge_unavailable/) });
  });

  it("a command note delivered twice launches once", async () => {
    const hook = await forgeHook(w, forge);
    const d = commandDelivery(forge, "/re-review", WORLD.maria.login);
    const first = await deliver(w, hook, d.event, d.payload);
    const again = await deliver(w, hook, d.event, d.payload);
    expect(first.body, JSON.stringify(first.body)).toMatchObject({ status: "launched" });
    expect(again.body).toMatchObject({ status: "duplicate", run_id: first.body.run_id });
  });

  it("a command on an open issue goes to the command handler with surface=issue", async () => {
    const { res, calls } = await command({}, "/improve add a sprocket pool", WORLD.maria.login, { onIssue: true });
    expect(res.body).toMatchObject({ status: "launched", bot: "improve" });
    const run = await runOf(w, res.body.run_id);
    expect(run.vars).toMatchObject({ surface: "issue", open_mr: "true", trigger_command: "improve", trigger_args: "add a sprocket pool" });
    expect(run.vars.feature_prompt).toMatch(forge === "forge_a" ? /^Sprockets are slow\n\nThey take 2 s\.$/ : /^Faster sprockets\n\n/);
    expect(run.vars.source_issue_ref).toMatch(/^https:\/\/forge\.test\/acme\/widgets\/(-\/issues\/3|issues\/7)$/);
    expect(run.vars.pr_url).toBeUndefined();
    // No pull request to prove on an issue.
    expect(calls.some((c) => /pulls|merge_requests/.test(c))).toBe(false);
  });

  it("never logs the forge token (after every case above)", () => {
    expect(w.t.logs.length).toBeGreaterThan(0);
    expect(w.t.logs.some((l) => l.includes(`tok-${forge}`))).toBe(false);
  });
});
