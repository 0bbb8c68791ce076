import { createHmac, generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { githubExample, loadGithubExamples } from "../intake/fixtures/fixtures.js";
import { FakeGitHub } from "../test-support/fake-forges/fake-github.js";
import { FakeGitHubApp } from "../test-support/fake-forges/fake-github-app.js";
import { FakeHooks } from "../test-support/fake-forges/fake-hooks.js";
import type { FakeCommitStatus } from "../test-support/fake-forges/fake-github.js";
import { WORLD } from "../test-support/fake-forges/world.js";
import {
  deliver,
  fakeOf,
  FORGES,
  forgeHook,
  githubLikeReviewRequest,
  gitlabReviewerUpdate,
  startForgeWorld,
  type Forge,
  type ForgeWorld,
  type Hook,
} from "../test-support/forge-deliveries.js";
import { seedTenancy, startTestApp, storeKinds, type TestApp } from "../test-support/harness.js";
import type { RunOutcome } from "../runs/runs.js";
import { findStatusReport, putStatusReport } from "../store/status-reports.js";
import { MAX_TRIES } from "./status-reporter.js";

const cases = storeKinds().flatMap((kind) => FORGES.map((forge) => [kind, forge] as const));

/** Each forge's words for a run's states, as its status API takes them. */
const WORDS: Record<Forge, { running: string; failure: string }> = {
  forge_a: { running: "running", failure: "failed" },
  forge_b: { running: "pending", failure: "failure" },
  forge_c: { running: "pending", failure: "failure" },
};

describe.each(cases)("run states on the forge, %s, %s", (kind, forge: Forge) => {
  let w: ForgeWorld;

  const statuses = (): FakeCommitStatus[] => (forge === "forge_a" ? w.gitlab : forge === "forge_b" ? w.github : w.forgejo).statuses;
  const statusCalls = () => fakeOf(w, forge).requests.filter((r) => r.method === "POST" && /\/statuses\//.test(r.path)).length;
  const tick = () => w.t.services.statusReports.tick(w.t.clock.now());

  /** The pull request (merge request) opened: the review bot launched for its head. */
  const opened = async (hook: Hook): Promise<string> => {
    const payload =
      forge === "forge_a"
        ? Object.assign(gitlabReviewerUpdate(WORLD.bot.login, WORLD.maria.login, "added"), {})
        : githubLikeReviewRequest(WORLD.bot.login, WORLD.maria.login);
    if (forge === "forge_a") {
      payload.object_attributes.action = "open";
      payload.object_attributes.last_commit = { ...payload.object_attributes.last_commit, id: WORLD.headSha };
      delete payload.changes;
    } else payload.action = "opened";
    const res = await deliver(w, hook, forge === "forge_a" ? "Merge Request Hook" : "pull_request", payload);
    expect(res.body).toMatchObject({ status: "launched", bot: "review-pr" });
    return res.body.run_id as string;
  };

  const claim = async (runId: string) => {
    for (;;) {
      const c = await w.t.services.runQueue.claim("test-worker", 600_000);
      if (!c) throw new Error(`run ${runId} was not on the queue`);
      if (c.run.id === runId) return c;
    }
  };
  const finish = async (c: Awaited<ReturnType<typeof claim>>, outcome: RunOutcome) => {
    expect((await w.t.services.runQueue.finish(c, outcome)).finished).toBe(true);
  };

  beforeAll(async () => {
    w = await startForgeWorld(kind);
  });
  afterAll(() => w.close());
  beforeEach(() => {
    w.t.clock.advance(60_000);
    fakeOf(w, forge).clearFaults();
  });

  it("shows a delivered run on its commit: pending, running, then the bot's summary on success; never while the delivery is received", async () => {
    const hook = await forgeHook(w, forge, { report_status: true });
    const before = statuses().length;
    const runId = await opened(hook);
    expect(statusCalls()).toBe(before);

    expect((await tick()).get(runId)).toBe("sent");
    const target = `${w.t.config.baseUrl}/console/runs/${runId}`;
    expect(statuses().slice(before)).toEqual([
      { repo: WORLD.repo, sha: WORLD.headSha, state: "pending", context: "bot-gateway/review-pr", description: "Queued", targetUrl: target },
    ]);

    const c = await claim(runId);
    w.t.clock.advance(1_000);
    expect((await tick()).get(runId)).toBe("sent");
    expect(statuses().at(-1)).toMatchObject({ state: WORDS[forge].running, description: "Running" });

    // Nothing changed: nothing is sent again.
    w.t.clock.advance(1_000);
    const calls = statusCalls();
    expect((await tick()).has(runId)).toBe(false);
    expect(statusCalls()).toBe(calls);

    await finish(c, { status: "succeeded", summary: "Two findings,\nboth minor" });
    w.t.clock.advance(1_000);
    expect((await tick()).get(runId)).toBe("sent");
    expect(statuses().at(-1)).toMatchObject({ state: "success", description: "Two findings, both minor", context: "bot-gateway/review-pr" });
    expect(await findStatusReport(w.t.store.db, runId)).toMatchObject({ reported_key: "success|Two findings, both minor", due_at: null });
  });

  it("two passes at once (two replicas) send a state once", async () => {
    const hook = await forgeHook(w, forge, { report_status: true });
    const runId = await opened(hook);
    const calls = statusCalls();
    const [a, b] = await Promise.all([tick(), tick()]);
    expect([a.get(runId), b.get(runId)].filter((r) => r === "sent")).toHaveLength(1);
    expect(statusCalls()).toBe(calls + 1);
    await w.seed.member.api.post(`/api/runs/${runId}/cancel`);
    w.t.clock.advance(1_000);
    expect((await tick()).get(runId)).toBe("sent");
  });

  it("a pass that read the run before another replica sent its state neither sends it again nor goes back", async () => {
    const hook = await forgeHook(w, forge, { report_status: true });
    const runId = await opened(hook);
    expect((await tick()).get(runId)).toBe("sent");
    const row = (await findStatusReport(w.t.store.db, runId))!;
    const stale = { runId, webhookId: row.webhook_id, runUpdatedAt: Number(row.updated_at), now: w.t.clock.now() };
    await putStatusReport(w.t.store.db, { ...stale, state: row.state, description: row.description });
    expect(await findStatusReport(w.t.store.db, runId)).toMatchObject({ due_at: null, reported_key: `${row.state}|${row.description}` });
    await putStatusReport(w.t.store.db, { ...stale, runUpdatedAt: stale.runUpdatedAt - 1, state: "failure", description: "Older" });
    expect(await findStatusReport(w.t.store.db, runId)).toMatchObject({ state: row.state, due_at: null });
    const calls = statusCalls();
    w.t.clock.advance(1_000);
    expect((await tick()).has(runId)).toBe(false);
    expect(statusCalls()).toBe(calls);
  });

  it("a failed run shows failure", async () => {
    const hook = await forgeHook(w, forge, { report_status: true });
    const runId = await opened(hook);
    await tick();
    const c = await claim(runId);
    await finish(c, { status: "failed", failureCode: "BOT_EXIT_1" });
    w.t.clock.advance(1_000);
    expect((await tick()).get(runId)).toBe("sent");
    expect(statuses().at(-1)).toMatchObject({ state: WORDS[forge].failure, description: "Failed (BOT_EXIT_1)" });
  });

  it("a forge failure never fails the run: it is tried again with backoff, counted, and given up after a bound", async () => {
    const hook = await forgeHook(w, forge, { report_status: true });
    const runId = await opened(hook);
    fakeOf(w, forge).fault({ match: /statuses/, status: 503 });
    expect((await tick()).get(runId)).toBe("failed");
    const row = await findStatusReport(w.t.store.db, runId);
    expect(row).toMatchObject({ tries: 1, reported_key: null });
    expect(row!.due_at).toBeGreaterThan(w.t.clock.now());
    // Not due yet: nothing is sent.
    const calls = statusCalls();
    expect((await tick()).has(runId)).toBe(false);
    expect(statusCalls()).toBe(calls);

    fakeOf(w, forge).clearFaults();
    w.t.clock.advance(31_000);
    expect((await tick()).get(runId)).toBe("sent");
    expect(statuses().at(-1)).toMatchObject({ state: "pending", description: "Queued" });
    const metrics = await w.t.services.metrics.text();
    expect(metrics).toMatch(new RegExp(`service_forge_status_reports_total\\{provider="${forge}",result="failed"\\} [1-9]`));
    expect(metrics).toMatch(new RegExp(`service_forge_status_reports_total\\{provider="${forge}",result="sent"\\} [1-9]`));

    // A forge that keeps failing: given up after MAX_TRIES, the run untouched.
    await w.t.services.runQueue.cancel(runId);
    fakeOf(w, forge).fault({ match: /statuses/, status: 503 });
    let last: string | undefined;
    for (let i = 0; i < MAX_TRIES; i++) {
      w.t.clock.advance(3_600_000);
      last = (await tick()).get(runId);
    }
    expect(last).toBe("gave_up");
    expect(await findStatusReport(w.t.store.db, runId)).toMatchObject({ tries: MAX_TRIES, due_at: null });
    expect((await w.seed.member.api.get(`/api/runs/${runId}`)).body.status).toBe("cancelled");
    fakeOf(w, forge).clearFaults();
  });

  it("reports nothing for a run not launched by a forge delivery", async () => {
    await forgeHook(w, forge, { report_status: true });
    const r = await w.seed.member.api.post("/api/runs", { team_id: w.seed.team.id, bot: "review-pr", vars: {}, repo_url: "https://forge.example/a/b.git" });
    expect(r.status).toBe(201);
    const calls = statusCalls();
    expect((await tick()).has(r.body.id)).toBe(false);
    expect(await findStatusReport(w.t.store.db, r.body.id)).toBeUndefined();
    expect(statusCalls()).toBe(calls);
    await w.seed.member.api.post(`/api/runs/${r.body.id}/cancel`);
  });

  it("reports nothing with report_status off, nor by default for a webhook that was not provisioned", async () => {
    for (const fields of [{ report_status: false }, {}]) {
      const hook = await forgeHook(w, forge, fields);
      expect((await w.seed.teamAdmin.api.get(`/api/teams/${w.seed.team.id}/webhooks/${hook.id}`)).body.report_status).toBe(
        "report_status" in fields ? false : null,
      );
      const runId = await opened(hook);
      const calls = statusCalls();
      expect((await tick()).has(runId)).toBe(false);
      expect(await findStatusReport(w.t.store.db, runId)).toBeUndefined();
      expect(statusCalls()).toBe(calls);
      await w.seed.member.api.post(`/api/runs/${runId}/cancel`);
    }
  });
});

describe.each(storeKinds())("check runs for a GitHub App connection on %s", (kind) => {
  let t: TestApp;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;
  let gh: FakeGitHub;
  let hooks: FakeHooks;
  const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });

  beforeAll(async () => {
    t = await startTestApp(kind, { SERVICE_BASE_URL: "https://gw.example" });
    seed = await seedTenancy(t);
    gh = await FakeGitHub.start();
    hooks = FakeHooks.mount(gh.server, "github");
    FakeGitHubApp.mount(gh.server, { id: 7, slug: "acme-review", installationId: 42, publicKey: keys.publicKey, now: () => t.clock.now() });
  });
  afterAll(async () => {
    await gh.server.close();
    await t.close();
  });

  it("a provisioned repository's run is a check run: queued, in progress, then completed with its conclusion", async () => {
    const connection = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/connections`, {
      provider: "github",
      base_url: gh.server.url,
      app_id: 7,
      private_key: keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      installation_id: 42,
    });
    expect(connection.status).toBe(201);
    const provisioned = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/repo-bots`, {
      connection_id: connection.body.id,
      repo: WORLD.repo,
      bot_ids: ["review-pr"],
    });
    expect(provisioned.body.forge_written).toBe(true);

    const pr = githubExample(loadGithubExamples(), "pull_request", "opened") as any;
    for (const r of [pr.repository, pr.pull_request.base.repo, pr.pull_request.head.repo]) r.full_name = WORLD.repo;
    pr.pull_request.head.repo.id = pr.pull_request.base.repo.id;
    pr.pull_request.head.sha = WORLD.headSha;
    pr.pull_request.user.login = WORLD.maria.login;
    pr.pull_request.draft = false;
    const body = JSON.stringify(pr);
    const hook = hooks.of()[0]!;
    const delivered = await t.app.inject({
      method: "POST",
      url: new URL(hook.url).pathname,
      payload: body,
      headers: {
        "content-type": "application/json",
        "x-github-event": "pull_request",
        "x-github-delivery": "d-check-run",
        "x-hub-signature-256": `sha256=${createHmac("sha256", hook.secret).update(body).digest("hex")}`,
      },
    });
    const answer = JSON.parse(delivered.body);

    expect(answer).toMatchObject({ status: "launched" });
    const runId = answer.run_id as string;
    const tick = () => t.services.statusReports.tick(t.clock.now());

    expect((await tick()).get(runId)).toBe("sent");
    expect(gh.statuses).toEqual([]);
    const [created] = [...gh.checkRuns.values()];
    expect(created).toMatchObject({
      repo: WORLD.repo,
      headSha: WORLD.headSha,
      name: `bot-gateway/${answer.bot}`,
      status: "queued",
      conclusion: null,
      detailsUrl: `https://gw.example/console/runs/${runId}`,
      title: "Queued",
    });

    let claimed: Awaited<ReturnType<typeof t.services.runQueue.claim>>;
    do claimed = await t.services.runQueue.claim("test-worker", 600_000);
    while (claimed && claimed.run.id !== runId);
    t.clock.advance(1_000);
    expect((await tick()).get(runId)).toBe("sent");
    expect(gh.checkRuns.get(created!.id)).toMatchObject({ status: "in_progress", title: "Running" });

    await t.services.runQueue.finish(claimed!, { status: "succeeded", summary: "No findings" });
    t.clock.advance(1_000);
    expect((await tick()).get(runId)).toBe("sent");
    expect(gh.checkRuns.size).toBe(1);
    expect(gh.checkRuns.get(created!.id)).toMatchObject({ status: "completed", conclusion: "success", title: "No findings", summary: "No findings" });
    expect(gh.server.requests.filter((r) => r.method === "PATCH" && r.path.endsWith(`/check-runs/${created!.id}`))).toHaveLength(2);

    // Turned off on the repository's provisioning: the next run is not shown.
    const off = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/repo-bots`, {
      connection_id: connection.body.id,
      repo: WORLD.repo,
      report_status: false,
    });
    expect(off.body.webhook.report_status).toBe(false);
    pr.pull_request.head.sha = "a".repeat(40);
    const next = JSON.stringify(pr);
    const again = await t.app.inject({
      method: "POST",
      url: new URL(hook.url).pathname,
      payload: next,
      headers: {
        "content-type": "application/json",
        "x-github-event": "pull_request",
        "x-github-delivery": "d-check-run-2",
        "x-hub-signature-256": `sha256=${createHmac("sha256", hook.secret).update(next).digest("hex")}`,
      },
    });
    const second = JSON.parse(again.body);
    expect(second).toMatchObject({ status: "launched" });
    t.clock.advance(1_000);
    expect((await tick()).has(second.run_id)).toBe(false);
    expect(gh.checkRuns.size).toBe(1);
  });
});
