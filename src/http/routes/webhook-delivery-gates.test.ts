import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture, githubExample, loadGithubExamples } from "../../intake/fixtures/fixtures.js";
import { FakeHooks } from "../../test-support/fake-forges/fake-hooks.js";
import { WORLD } from "../../test-support/fake-forges/world.js";
import { type Forge, runOf, startForgeWorld, type ForgeWorld } from "../../test-support/forge-deliveries.js";
import { storeKinds } from "../../test-support/harness.js";

const examples = loadGithubExamples();
type Outcome = "success" | "failure" | "pending";

/** Each forge's gate events and the gate's name as that forge reports it. */
const GATES = [
  { provider: "forge_b", alias: "github", flavour: "github", gate: "ci/test", events: ["check_run", "check_suite", "status"] },
  { provider: "forge_a", alias: "gitlab", flavour: "gitlab", gate: "ci", events: ["Pipeline Hook"] },
  { provider: "forge_c", alias: "forgejo", flavour: "forgejo", gate: "ci/woodpecker/pr/test", events: ["status"] },
] as const;
type GateForge = (typeof GATES)[number];
const cases = GATES.flatMap((g) => g.events.map((event) => [g.provider, event, g] as const));

let counter = 0x10_0000;
/** A fresh commit sha (and gate run id) per use, so every case has its own idempotency keys. */
const freshSha = () => (++counter).toString(16).padStart(40, "c");
const freshRun = () => ++counter;

const repository = (p: Record<string, any>) =>
  Object.assign(p.repository, { id: WORLD.repoId, full_name: WORLD.repo, clone_url: `https://forge.test/${WORLD.repo}.git`, default_branch: "main" });
const githubPulls = (pulls: number[], sha: string) =>
  pulls.map((number) => ({
    url: `https://api.github.test/repos/${WORLD.repo}/pulls/${number}`,
    id: 70_000 + number,
    number,
    head: { ref: WORLD.headRef, sha, repo: { id: WORLD.repoId, url: `https://api.github.test/repos/${WORLD.repo}`, name: "widgets" } },
    base: { ref: WORLD.baseRef, sha: "0".repeat(40), repo: { id: WORLD.repoId, url: `https://api.github.test/repos/${WORLD.repo}`, name: "widgets" } },
  }));

/** What a case changes of the fake forge's pull request 7. */
type PullChange = { sha?: string; draft?: boolean; fork?: boolean; closed?: boolean };

function changeGithubLikePull(p: { headSha: string; draft?: boolean; headRepo: { id: number; fullName: string } | null; state: string }, o: PullChange): void {
  if (o.sha !== undefined) p.headSha = o.sha;
  if (o.draft !== undefined) p.draft = o.draft;
  if (o.fork) p.headRepo = { id: WORLD.fork.id, fullName: WORLD.fork.fullName };
  if (o.closed) p.state = "closed";
}

function changeGitlabMergeRequest(m: { sha: string; draft: boolean; sourceProjectId: number; state: string }, o: PullChange): void {
  if (o.sha !== undefined) m.sha = o.sha;
  if (o.draft !== undefined) m.draft = o.draft;
  if (o.fork) m.sourceProjectId = WORLD.fork.id;
  if (o.closed) m.state = "closed";
}

/** A GitHub check's status and conclusion for the outcome. */
const githubCheckState = (outcome: Outcome) =>
  outcome === "pending" ? { status: "in_progress", conclusion: null } : { status: "completed", conclusion: outcome };

const GITLAB_PIPELINE_STATUS: Record<Outcome, string> = { success: "success", failure: "failed", pending: "running" };

/** The gate event as the forge sends it: GitHub's own examples, GitLab's and Forgejo's documented shapes. */
function gatePayload(event: string, o: { name: string; outcome: Outcome; sha: string; runId: number; pulls?: number[] }): Record<string, any> {
  const pulls = o.pulls ?? [WORLD.number];
  const details = `https://ci.example/runs/${o.runId}`;
  switch (event) {
    case "check_run": {
      const p = githubExample(examples, "check_run", "completed") as Record<string, any>;
      repository(p);
      Object.assign(p.check_run, {
        id: o.runId,
        name: o.name,
        head_sha: o.sha,
        ...githubCheckState(o.outcome),
        details_url: details,
        pull_requests: githubPulls(pulls, o.sha),
      });
      return p;
    }
    case "check_suite": {
      const p = githubExample(examples, "check_suite", "completed") as Record<string, any>;
      repository(p);
      Object.assign(p.check_suite, {
        id: o.runId,
        head_sha: o.sha,
        ...githubCheckState(o.outcome),
        pull_requests: githubPulls(pulls, o.sha),
        updated_at: `2026-11-20T10:${String(o.runId % 60).padStart(2, "0")}:00Z`,
      });
      Object.assign(p.check_suite.app, { name: o.name });
      return p;
    }
    case "status": {
      // GitHub's example, or Forgejo's status payload (both name the commit, never a pull request).
      const p = (o.name.startsWith("ci/woodpecker") ? fixture("forgejo-status") : githubExample(examples, "status")) as Record<string, any>;
      repository(p);
      Object.assign(p, { id: o.runId, sha: o.sha, context: o.name, state: o.outcome, target_url: details });
      return p;
    }
    case "Pipeline Hook": {
      const p = fixture("gitlab-pipeline-failed") as Record<string, any>;
      const status = GITLAB_PIPELINE_STATUS[o.outcome];
      Object.assign(p.object_attributes, { id: o.runId, name: o.name, sha: o.sha, status, detailed_status: status, url: details });
      Object.assign(p.object_attributes, { finished_at: `2026-11-20 10:${String(o.runId % 60).padStart(2, "0")}:00 UTC` });
      if (pulls.length === 0) delete p.merge_request;
      else p.merge_request.iid = pulls[0];
      return p;
    }
    default:
      throw new Error(`no gate event ${event}`);
  }
}

describe.each(storeKinds())("gate lanes on %s", (kind) => {
  let w: ForgeWorld;
  const provisioned = new Map<Forge, { url: string; secret: string; repoBot: string }>();

  beforeAll(async () => {
    w = await startForgeWorld(kind);
    for (const g of GATES) {
      const server = g.provider === "forge_a" ? w.gitlab.server : g.provider === "forge_b" ? w.github.server : w.forgejo.server;
      const hooks = FakeHooks.mount(server, g.flavour);
      const c = await w.seed.teamAdmin.api.post(`/api/teams/${w.seed.team.id}/forge/connections`, {
        provider: g.alias,
        base_url: server.url,
        token: "tok-connection-0001",
      });
      expect(c.status).toBe(201);
      const r = await w.seed.teamAdmin.api.post(`/api/teams/${w.seed.team.id}/forge/repo-bots`, {
        connection_id: c.body.id,
        repo: WORLD.repo,
        bot_ids: ["review-pr", "improve"],
        gate_context: g.gate,
        auto_fix_on_gate_failure: true,
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const hook = hooks.of(WORLD.repo)[0]!;
      // Many deliveries in a row: the bucket is not what these cases test.
      const limits = await w.seed.teamAdmin.api.patch(`/api/teams/${w.seed.team.id}/webhooks/${r.body.webhook_id}`, { rate: 1000, burst: 1000 });
      expect(limits.status).toBe(200);
      provisioned.set(g.provider, { url: new URL(hook.url).pathname, secret: hook.secret, repoBot: r.body.id });
    }
  });
  afterAll(() => w.close());

  /** The repo bot's gate settings, changed through repo-bots as a team admin would. */
  const configure = async (g: GateForge, body: Record<string, unknown>) => {
    const list = (await w.seed.member.api.get(`/api/teams/${w.seed.team.id}/forge/repo-bots`)).body.repo_bots as { id: string; connection_id: string }[];
    const rb = list.find((x) => x.id === provisioned.get(g.provider)!.repoBot)!;
    const r = await w.seed.teamAdmin.api.post(`/api/teams/${w.seed.team.id}/forge/repo-bots`, { connection_id: rb.connection_id, repo: WORLD.repo, ...body });
    expect(r.status).toBe(200);
  };

  /** POSTs `payload` as the forge sends `event` to the provisioned hook, signed with its secret. */
  const send = async (g: GateForge, event: string, payload: unknown) => {
    const { url, secret } = provisioned.get(g.provider)!;
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (g.provider === "forge_a") Object.assign(headers, { "x-gitlab-event": event, "x-gitlab-token": secret });
    if (g.provider === "forge_b")
      Object.assign(headers, { "x-github-event": event, "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}` });
    if (g.provider === "forge_c")
      Object.assign(headers, { "x-forgejo-event": event, "x-forgejo-signature": createHmac("sha256", secret).update(body).digest("hex") });
    const res = await w.t.app.inject({ method: "POST", url, payload: body, headers });
    return { status: res.statusCode, body: JSON.parse(res.body) as Record<string, any> };
  };

  /** The fake forge's pull request 7, changed for a case and put back after it. */
  const pull = (g: GateForge) => {
    if (g.provider === "forge_b") {
      const p = w.github.pull();
      return {
        set: (o: PullChange) => changeGithubLikePull(p, o),
        reset: () => Object.assign(p, { headSha: WORLD.headSha, draft: false, headRepo: { id: WORLD.repoId, fullName: WORLD.repo }, state: "open" }),
      };
    }
    if (g.provider === "forge_a") {
      const m = w.gitlab.mergeRequests.get(`${WORLD.repoId}!${WORLD.number}`)!;
      return {
        set: (o: PullChange) => changeGitlabMergeRequest(m, o),
        reset: () => Object.assign(m, { sha: WORLD.headSha, draft: false, sourceProjectId: WORLD.repoId, state: "opened" }),
      };
    }
    const p = w.forgejo.pulls.get(`${WORLD.repo}#${WORLD.number}`)!;
    return {
      set: (o: PullChange) => changeGithubLikePull(p, o),
      reset: () => Object.assign(p, { headSha: WORLD.headSha, draft: false, headRepo: { id: WORLD.repoId, fullName: WORLD.repo }, state: "open" }),
    };
  };

  /** A gate result on a fresh head of pull request 7. */
  const onFreshHead = (g: GateForge) => {
    const sha = freshSha();
    pull(g).set({ sha });
    return sha;
  };

  describe.each(cases)("%s %s", (_provider, event, g) => {
    const gate = (outcome: Outcome, sha: string, over: { name?: string; runId?: number; pulls?: number[] } = {}) =>
      send(
        g,
        event,
        gatePayload(event, { name: over.name ?? g.gate, outcome, sha, runId: over.runId ?? freshRun(), ...(over.pulls && { pulls: over.pulls }) }),
      );
    /** The gate passing on the pull request: any run of fixes before this case is over. */
    const passed = async () => expect((await gate("success", onFreshHead(g))).body.status).toBe("filtered");

    it("auto-fix: a failure on the head of an open pull request launches the branch-improvement bot once, told the gate", async () => {
      await configure(g, { auto_fix_on_gate_failure: true, review_after_gate: false });
      await passed();
      const sha = onFreshHead(g);
      try {
        const runId = freshRun();
        const res = await gate("failure", sha, { runId });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body).toMatchObject({ status: "launched" });
        const run = await runOf(w, res.body.run_id);
        expect(run).toMatchObject({ bot_id: "improve", source: "webhook" });
        expect(run.vars).toMatchObject({
          gate_name: g.gate,
          gate_head_sha: sha,
          // A check suite has no page of its own to link.
          ...(event !== "check_suite" && { gate_details_url: `https://ci.example/runs/${runId}` }),
          gate_fix_attempt: "1",
          gate_fix_limit: "3",
          base_ref: WORLD.baseRef,
        });
        expect(run.vars.gate_conclusion).toMatch(/^(failure|failed)$/);
        expect(run.vars.gate_fix_last).toBeUndefined();
        // Once per (head sha, gate): a redelivery, or the gate reported again, launches nothing new.
        const again = await gate("failure", sha, { runId });
        expect(again.body).toMatchObject({ status: "duplicate", run_id: res.body.run_id });
      } finally {
        pull(g).reset();
      }
    });

    it.each([
      ["another check's result", { name: "lint" }, /not the gate/],
      ["an unfinished gate", { outcome: "pending" as Outcome }, /is (in_progress|running|pending): nothing to do/],
    ])("filters %s with 200", async (_label, over, reason) => {
      const sha = onFreshHead(g);
      try {
        const res = await gate((over as { outcome?: Outcome }).outcome ?? "failure", sha, over as { name?: string });
        expect(res.status).toBe(200);
        expect(res.body.status).toBe("filtered");
        expect(res.body.reason).toMatch(reason);
      } finally {
        pull(g).reset();
      }
    });

    it.each<[string, { fork?: boolean; draft?: boolean; closed?: boolean }, RegExp]>([
      ["a fork's pull request", { fork: true }, /fork/],
      ["a draft", { draft: true }, /draft/],
      // Forgejo names a commit's open pull request only.
      ["a closed pull request", { closed: true }, /is closed|no open pull request/],
    ])("never fixes %s", async (_label, state, reason) => {
      const sha = onFreshHead(g);
      pull(g).set(state);
      try {
        // GitHub names no fork's pull request in a check: the service asks the forge by commit.
        const res = await gate("failure", sha, state.fork && g.provider === "forge_b" ? { pulls: [] } : {});
        expect(res.body.status, JSON.stringify(res.body)).toBe("filtered");
        expect(res.body.reason).toMatch(reason);
      } finally {
        pull(g).reset();
      }
    });

    it("never fixes a commit that is no longer the head", async () => {
      const old = freshSha();
      onFreshHead(g);
      try {
        const res = await gate("failure", old);
        expect(res.body.status).toBe("filtered");
        expect(res.body.reason).toMatch(/no longer the head|no open pull request/);
      } finally {
        pull(g).reset();
      }
    });

    it("launches no fix when auto_fix_on_gate_failure is off", async () => {
      await configure(g, { auto_fix_on_gate_failure: false });
      const sha = onFreshHead(g);
      try {
        const res = await gate("failure", sha);
        expect(res.body).toMatchObject({ status: "filtered", reason: expect.stringMatching(/auto_fix_on_gate_failure is off/) });
      } finally {
        pull(g).reset();
        await configure(g, { auto_fix_on_gate_failure: true });
      }
    });

    it("holds auto-fix to 3 in a row on one pull request (the third told it is the last), until the gate passes", async () => {
      await configure(g, { auto_fix_on_gate_failure: true, review_after_gate: false });
      await passed();
      try {
        const attempts: Record<string, string>[] = [];
        for (let i = 0; i < 3; i++) {
          const res = await gate("failure", onFreshHead(g));
          expect(res.body.status, JSON.stringify(res.body)).toBe("launched");
          attempts.push((await runOf(w, res.body.run_id)).vars);
        }
        expect(attempts.map((v) => [v.gate_fix_attempt, v.gate_fix_last])).toEqual([
          ["1", undefined],
          ["2", undefined],
          ["3", "true"],
        ]);
        const fourth = await gate("failure", onFreshHead(g));
        expect(fourth.body.status).toBe("filtered");
        expect(fourth.body.reason).toMatch(/after 3 automatic fixes in a row .* no more until the gate passes/);
        // The gate passing on the pull request ends the run; the next failure is fixed again, first of three.
        const head = onFreshHead(g);
        expect((await gate("success", head)).body.status).toBe("filtered");
        const next = await gate("failure", onFreshHead(g));
        expect(next.body.status).toBe("launched");
        expect((await runOf(w, next.body.run_id)).vars.gate_fix_attempt).toBe("1");
      } finally {
        pull(g).reset();
      }
    });

    it("is gated and metered: the launch gate's denial is answered and nothing runs", async () => {
      await passed();
      const sha = onFreshHead(g);
      const team = `/api/teams/${w.seed.team.id}`;
      expect((await w.seed.admin.patch(team, { status: "suspended" })).status).toBe(200);
      try {
        const res = await gate("failure", sha);
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ error: "team_suspended" });
      } finally {
        await w.seed.admin.patch(team, { status: "active" });
      }
      const ok = await gate("failure", sha);
      expect(ok.body.status).toBe("launched");
      const row = await w.t.store.db.selectFrom("runs").select(["metered"]).where("id", "=", ok.body.run_id).executeTakeFirstOrThrow();
      expect(row.metered).toBe(1);
      pull(g).reset();
    });

    it("gate relaunch: with review_after_gate the review waits for the gate's success on the head, and a passing re-run relaunches it", async () => {
      await configure(g, { review_after_gate: true });
      const sha = onFreshHead(g);
      try {
        const runId = freshRun();
        const res = await gate("success", sha, { runId });
        expect(res.body.status, JSON.stringify(res.body)).toBe("launched");
        const run = await runOf(w, res.body.run_id);
        expect(run.bot_id).toBe("review-pr");
        expect(run.vars).toMatchObject({ gate_name: g.gate, gate_head_sha: sha, pr_review_mode: "inline", base_ref: WORLD.baseRef });
        expect((await gate("success", sha, { runId })).body).toMatchObject({ status: "duplicate", run_id: res.body.run_id });
        const rerun = await gate("success", sha);
        expect(rerun.body.status).toBe("launched");
        expect(rerun.body.run_id).not.toBe(res.body.run_id);
        // A failure still launches no review.
        await configure(g, { auto_fix_on_gate_failure: false });
        expect((await gate("failure", onFreshHead(g))).body.status).toBe("filtered");
      } finally {
        pull(g).reset();
        await configure(g, { review_after_gate: false, auto_fix_on_gate_failure: true });
      }
    });

    it("without review_after_gate a passing gate launches nothing", async () => {
      await configure(g, { review_after_gate: false });
      const sha = onFreshHead(g);
      try {
        const res = await gate("success", sha);
        expect(res.body.status).toBe("filtered");
        expect(res.body.reason).toMatch(/passes its gate/);
      } finally {
        pull(g).reset();
      }
    });
  });

  /** The pull request's own events, as its forge sends them when opened. */
  const openedEvent = (g: GateForge) => {
    if (g.provider === "forge_a") {
      const p = fixture("gitlab-merge-request-open") as Record<string, any>;
      Object.assign(p.project, { id: WORLD.repoId, path_with_namespace: WORLD.repo });
      Object.assign(p.object_attributes, {
        iid: WORLD.number,
        source_project_id: WORLD.repoId,
        target_project_id: WORLD.repoId,
        last_commit: { ...p.object_attributes.last_commit, id: freshSha() },
      });
      return { event: "Merge Request Hook", payload: p };
    }
    const p = (g.provider === "forge_c" ? fixture("forgejo-pull-request-opened") : githubExample(examples, "pull_request", "opened")) as Record<string, any>;
    repository(p);
    const repo = { id: WORLD.repoId, full_name: WORLD.repo };
    Object.assign(p.pull_request, { number: WORLD.number, state: "open", draft: false, user: { login: WORLD.maria.login, id: 42 } });
    Object.assign(p.pull_request.head, { sha: freshSha(), ref: WORLD.headRef, repo });
    Object.assign(p.pull_request.base, { ref: WORLD.baseRef, repo });
    return { event: "pull_request", payload: p };
  };

  it.each(GATES)("review_after_gate on $provider: the opened pull request's review waits; off, it launches at once as before", async (g) => {
    await configure(g, { review_after_gate: true });
    const waiting = openedEvent(g);
    const res = await send(g, waiting.event, waiting.payload);
    expect(res.body.status).toBe("filtered");
    expect(res.body.reason).toMatch(new RegExp(`review waits for gate ${g.gate.replace(/[/]/g, "\\/")}`));
    await configure(g, { review_after_gate: false });
    const now = openedEvent(g);
    expect((await send(g, now.event, now.payload)).body.status).toBe("launched");
  });

  it("GitLab: a job of the pipeline named as the gate is the gate (a commit status of that name)", async () => {
    const g = GATES[1];
    await configure(g, { gate_context: "unit-tests", auto_fix_on_gate_failure: true });
    const sha = onFreshHead(g);
    try {
      // The pipeline's own name is another; its unit-tests job failed.
      const res = await send(g, "Pipeline Hook", gatePayload("Pipeline Hook", { name: "nightly", outcome: "failure", sha, runId: freshRun() }));
      expect(res.body.status, JSON.stringify(res.body)).toBe("launched");
      const run = await runOf(w, res.body.run_id);
      expect(run.vars).toMatchObject({ gate_name: "unit-tests", gate_conclusion: "failed", gate_details_url: expect.stringMatching(/\/jobs\/381$/) });
    } finally {
      pull(g).reset();
      await configure(g, { gate_context: g.gate });
    }
  });

  it("a repository with no gate_context has no gate lanes", async () => {
    const res = await send(GATES[0], "check_run", gatePayload("check_run", { name: "ci/test", outcome: "failure", sha: freshSha(), runId: freshRun() }));
    // The provisioned repository names its gate; a plain webhook has none.
    expect(res.body.status).not.toBe("invalid");
    const hook = await w.seed.teamAdmin.api.post(`/api/teams/${w.seed.team.id}/webhooks`, {
      provider: "forge_b",
      bot_ids: ["improve"],
      event_allowlist: ["*"],
    });
    const body = JSON.stringify(gatePayload("check_run", { name: "ci/test", outcome: "failure", sha: freshSha(), runId: freshRun() }));
    const plain = await w.t.app.inject({
      method: "POST",
      url: `/api/webhooks/forge_b/${hook.body.config.id}`,
      payload: body,
      headers: {
        "content-type": "application/json",
        "x-github-event": "check_run",
        "x-hub-signature-256": `sha256=${createHmac("sha256", hook.body.token).update(body).digest("hex")}`,
      },
    });
    expect(JSON.parse(plain.body)).toMatchObject({ status: "filtered", reason: "gate event: this repository names no gate_context" });
  });
});
