import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";

const KEY = "sk-ant-team-PLAINTEXT-000000000001";

describe.each(storeKinds())("runner tokens and the runner protocol on %s", (kind) => {
  let t: TestApp;
  let s: Seed;
  let base: string;

  /** The runner protocol over real HTTP, as a runner host calls it. */
  const call = async (token: string, path: string, body: unknown = {}) => {
    const res = await fetch(`${base}/api/runner/v1/${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const claim = (token: string) => call(token, "claim", { wait_seconds: 0 });
  const launch = async (teamId: string, bot = "review-pr") =>
    (await s.admin.post("/api/runs", { team_id: teamId, bot, vars: { title: "t" } })).body.id as string;
  const run = async (id: string) => (await s.admin.get(`/api/runs/${id}`)).body;
  const metric = async (name: string) => ((await t.app.inject({ url: "/metrics" })).body.split("\n") as string[]).filter((l) => l.startsWith(name));

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  it("lets a super-admin mint, list, rotate and revoke platform runners, and nobody else", async () => {
    const minted = await s.admin.post("/api/admin/runners", { name: "build-1" });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ name: "build-1", pool: "platform", org_id: null, status: "offline", token: expect.stringMatching(/^rnr_/) });
    const listed = (await s.admin.get("/api/admin/runners")).body.runners;
    expect(listed).toEqual([expect.objectContaining({ id: minted.body.id, last4: minted.body.token.slice(-4) })]);
    expect(JSON.stringify(listed)).not.toContain(minted.body.token);
    for (const who of [s.orgAdmin, s.teamAdmin, s.member]) {
      expect((await who.api.post("/api/admin/runners", { name: "x" })).status).toBe(403);
      expect((await who.api.get("/api/admin/runners")).status).toBe(403);
      expect((await who.api.delete(`/api/admin/runners/${minted.body.id}`)).status).toBe(403);
      expect((await who.api.post(`/api/admin/runners/${minted.body.id}/rotate`)).status).toBe(403);
    }
    expect((await s.admin.post("/api/admin/runners", { name: "  " })).status).toBe(400);

    const rotated = await s.admin.post(`/api/admin/runners/${minted.body.id}/rotate`);
    expect(rotated.body).toMatchObject({ id: minted.body.id, token: expect.stringMatching(/^rnr_/), rotated_at: expect.any(String) });
    expect((await claim(minted.body.token)).status).toBe(401);
    expect((await claim(rotated.body.token)).status).toBe(204);
    expect((await s.admin.get("/api/admin/runners")).body.runners[0].status).toBe("online");

    expect((await s.admin.delete(`/api/admin/runners/${minted.body.id}`)).status).toBe(204);
    expect((await s.admin.delete(`/api/admin/runners/${minted.body.id}`)).status).toBe(404);
    expect((await s.admin.post(`/api/admin/runners/${minted.body.id}/rotate`)).status).toBe(404);
    // A runner token is no user's: the management API refuses it.
    const asUser = await fetch(`${base}/api/admin/runners`, { headers: { authorization: `Bearer ${rotated.body.token}` } });
    expect(asUser.status).toBe(401);
    const refused = await claim(rotated.body.token);
    expect(refused).toMatchObject({ status: 401, body: { error: "unauthenticated" } });
    expect((await s.admin.get("/api/admin/runners")).body.runners[0]).toMatchObject({ status: "revoked", revoked_at: expect.any(String) });
  });

  it("lets an org admin (and a super-admin) keep the org's own runners; a team admin or another org cannot", async () => {
    const path = `/api/orgs/${s.org.id}/runners`;
    const minted = await s.orgAdmin.api.post(path, { name: "acme-own" });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ pool: "org", org_id: s.org.id, token: expect.stringMatching(/^rnr_/) });
    expect((await s.admin.get(path)).body.runners.map((r: { id: string }) => r.id)).toContain(minted.body.id);
    expect((await s.teamAdmin.api.post(path, { name: "x" })).status).toBe(403);
    expect((await s.teamAdmin.api.get(path)).status).toBe(403);
    expect((await s.teamAdmin.api.delete(`${path}/${minted.body.id}`)).status).toBe(403);
    // The outsider is a team admin of the org's other team: not an org admin either.
    expect((await s.outsider.api.post(`${path}/${minted.body.id}/rotate`)).status).toBe(403);
    const other = (await s.admin.post("/api/admin/orgs", { name: "Globex" })).body;
    // The org's runner is not the platform's, nor another org's.
    expect((await s.admin.delete(`/api/admin/runners/${minted.body.id}`)).status).toBe(404);
    expect((await s.admin.delete(`/api/orgs/${other.id}/runners/${minted.body.id}`)).status).toBe(404);
    expect((await s.orgAdmin.api.get(`/api/orgs/${other.id}/runners`)).status).toBe(404);
    const rotated = await s.orgAdmin.api.post(`${path}/${minted.body.id}/rotate`);
    expect(rotated.status).toBe(200);
    expect((await s.orgAdmin.api.delete(`${path}/${minted.body.id}`)).status).toBe(204);
    expect((await claim(rotated.body.token)).status).toBe(401);
  });

  it("claims over HTTP one attempt with its bot, input and handed key; heartbeats carry a cancel; the finish records usage", async () => {
    const runner = (await s.admin.post("/api/admin/runners", { name: "http-1" })).body;
    await s.admin.post(`/api/teams/${s.team.id}/keys`, { provider: "example", name: "k", secret: KEY });
    const id = launch(s.team.id);
    const runId = await id;
    const claimed = await call(runner.token, "claim", { wait_seconds: 0, host: "host-a" });
    expect(claimed.status).toBe(200);
    expect(claimed.body).toMatchObject({
      run_id: runId,
      attempt: 1,
      claim_token: expect.any(String),
      lease_seconds: 60,
      bot: { id: "review-pr", command: ["node", "examples/summarise-vars.mjs", "--mode=review"], timeout_seconds: 300 },
      vars: { title: "t" },
      repo_url: null,
      credentials: {},
    });
    expect(Object.keys(claimed.body.bot).sort()).toEqual(["command", "env", "id", "timeout_seconds"]);
    const attempt = await t.store.db.selectFrom("run_attempts").selectAll().where("run_id", "=", runId).executeTakeFirstOrThrow();
    expect(attempt).toMatchObject({ status: "running", claimed_by: `http-1/host-a (${runner.id})`, runner_id: runner.id });
    const token = claimed.body.claim_token;

    expect((await call(runner.token, `runs/${runId}/heartbeat`, { claim_token: token })).body).toEqual({ held: true, cancel: false });
    expect((await call(runner.token, `runs/${runId}/output`, { claim_token: token, lines: [{ stream: "stdout", text: "hello\n" }] })).body).toEqual({
      held: true,
    });
    await s.admin.post(`/api/runs/${runId}/cancel`);
    expect((await call(runner.token, `runs/${runId}/heartbeat`, { claim_token: token })).body).toEqual({ held: true, cancel: true });
    // Another runner cannot speak for this attempt, nor can a wrong claim token.
    const other = (await s.admin.post("/api/admin/runners", { name: "http-2" })).body;
    expect((await call(other.token, `runs/${runId}/heartbeat`, { claim_token: token })).status).toBe(404);
    expect((await call(runner.token, `runs/${runId}/finish`, { claim_token: "att_nope", outcome: { status: "succeeded" }, usage: [] })).status).toBe(404);
    expect((await call(runner.token, `runs/${runId}/finish`, { claim_token: token, outcome: { status: "nope" }, usage: [] })).status).toBe(400);

    const before = (await s.admin.get(`/api/admin/orgs/${s.org.id}/usage`)).body;
    const usage = [{ id: "u1", cost_usd: 0.25, input_tokens: 10, output_tokens: 3, provider: "example", fingerprint: "fp-http", tier: "team" }];
    const finished = await call(runner.token, `runs/${runId}/finish`, { claim_token: token, outcome: { status: "cancelled" }, usage });
    expect(finished).toEqual({ status: 200, body: { finished: true } });
    expect(await run(runId)).toMatchObject({ status: "cancelled", attempts: [{ number: 1, status: "cancelled" }] });
    const after = (await s.admin.get(`/api/admin/orgs/${s.org.id}/usage`)).body;
    expect(after.cost_usd_this_month - before.cost_usd_this_month).toBeCloseTo(0.25, 9);
    // A repeated finish changes nothing and counts the usage once.
    expect((await call(runner.token, `runs/${runId}/finish`, { claim_token: token, outcome: { status: "succeeded" }, usage })).body).toEqual({
      finished: false,
    });
    expect((await s.admin.get(`/api/admin/orgs/${s.org.id}/usage`)).body.cost_usd_this_month).toBe(after.cost_usd_this_month);
    expect((await call(runner.token, `runs/${runId}/heartbeat`, { claim_token: token })).body).toEqual({ held: false, cancel: true });
    await s.admin.delete(`/api/teams/${s.team.id}/keys/${(await s.admin.get(`/api/teams/${s.team.id}/keys`)).body.keys[0].id}`);
  });

  it("hands the attempt exactly the credentials it was handed", async () => {
    const team = (await s.admin.post(`/api/orgs/${s.org.id}/teams`, { name: "Keys" })).body;
    const runner = (await s.admin.post("/api/admin/runners", { name: "keys" })).body;
    await s.admin.post(`/api/teams/${team.id}/secrets`, { name: "NPM_TOKEN", value: "npm-secret-value" });
    const runId = await launch(team.id);
    const claimed = await claim(runner.token);
    expect(claimed.body.run_id).toBe(runId);
    // review-pr names no provider and no webhook named a secret: nothing is handed.
    expect(claimed.body.credentials).toEqual({});
    expect(JSON.stringify(claimed.body)).not.toContain("npm-secret-value");
    await call(runner.token, `runs/${runId}/finish`, { claim_token: claimed.body.claim_token, outcome: { status: "succeeded" }, usage: [] });
  });

  it("carries a bot's question and summary in the finish, and the answer in the next attempt's ticket", async () => {
    const runner = (await s.admin.post("/api/admin/runners", { name: "asks" })).body;
    const runId = await launch(s.team.id);
    const first = await claim(runner.token);
    expect(first.body).toMatchObject({ run_id: runId, answer: null });
    const question = { text: "Ship it?", choices: ["yes", "no"] };
    const outcome = { status: "failed_resumable", failure_code: "QUESTION", detail: "Ship it?", question, summary: "half way" };
    expect((await call(runner.token, `runs/${runId}/finish`, { claim_token: first.body.claim_token, outcome, usage: [] })).body).toEqual({ finished: true });
    expect((await s.member.api.get(`/api/runs/${runId}`)).body).toMatchObject({ question, summary: "half way", waiting_for_answer: true });
    expect((await s.member.api.post(`/api/runs/${runId}/answer`, { answer: "yes" })).status).toBe(200);
    const second = await claim(runner.token);
    expect(second.body).toMatchObject({ run_id: runId, attempt: 2, answer: "yes" });
    const bad = { status: "succeeded", question: { text: "" } };
    expect((await call(runner.token, `runs/${runId}/finish`, { claim_token: second.body.claim_token, outcome: bad, usage: [] })).status).toBe(400);
    await call(runner.token, `runs/${runId}/finish`, { claim_token: second.body.claim_token, outcome: { status: "succeeded" }, usage: [] });
    expect((await s.member.api.get(`/api/runs/${runId}`)).body).toMatchObject({ status: "succeeded", answer: null, waiting_for_answer: false, summary: null });
  });

  it("refuses a revoked runner at its next call; its claimed run is reclaimed by the lease rules (RUNNER_LOST) and resumes", async () => {
    const runner = (await s.admin.post("/api/admin/runners", { name: "doomed" })).body;
    const runId = await launch(s.team.id);
    const claimed = await claim(runner.token);
    expect(claimed.body.run_id).toBe(runId);
    expect((await s.admin.delete(`/api/admin/runners/${runner.id}`)).status).toBe(204);
    expect((await call(runner.token, `runs/${runId}/heartbeat`, { claim_token: claimed.body.claim_token })).status).toBe(401);
    expect((await run(runId)).status).toBe("running");
    t.clock.advance(60_001);
    expect(await t.services.runQueue.reclaimExpiredLeases()).toBeGreaterThanOrEqual(1);
    expect(await run(runId)).toMatchObject({ status: "failed_resumable", failure_code: "RUNNER_LOST" });
    expect((await s.admin.post(`/api/runs/${runId}/resume`)).body.status).toBe("queued");
    const next = (await s.admin.post("/api/admin/runners", { name: "heir" })).body;
    const again = await claim(next.token);
    expect(again.body).toMatchObject({ run_id: runId, attempt: 2 });
    await call(next.token, `runs/${runId}/finish`, { claim_token: again.body.claim_token, outcome: { status: "succeeded" }, usage: [] });
    expect((await run(runId)).status).toBe("succeeded");
  });

  it("routes an org's runs to the pool it names: its own runners, or the platform's", async () => {
    const acme = (await s.admin.post("/api/admin/orgs", { name: "Own pool" })).body;
    const team = (await s.admin.post(`/api/orgs/${acme.id}/teams`, { name: "T" })).body;
    expect((await s.orgAdmin.api.patch(`/api/admin/orgs/${acme.id}`, { runner_pool: "org" })).status).toBe(403);
    expect((await s.admin.patch(`/api/admin/orgs/${acme.id}`, { runner_pool: "org" })).body.runner_pool).toBe("org");
    expect((await s.admin.patch(`/api/admin/orgs/${acme.id}`, { runner_pool: "nope" })).status).toBe(400);
    const own = (await s.admin.post(`/api/orgs/${acme.id}/runners`, { name: "own" })).body;
    const seedOrgRunner = (await s.admin.post(`/api/orgs/${s.org.id}/runners`, { name: "seed-own" })).body;
    const platform = (await s.admin.post("/api/admin/runners", { name: "platform" })).body;

    const ownRun = await launch(team.id);
    expect((await claim(platform.token)).status).toBe(204);
    // The seed org names the platform's pool: its own runners get nothing, not even another org's runs.
    expect((await claim(seedOrgRunner.token)).status).toBe(204);
    const mine = await claim(own.token);
    expect(mine.body.run_id).toBe(ownRun);

    const platformRun = await launch(s.team.id);
    expect((await claim(own.token)).status).toBe(204);
    const theirs = await claim(platform.token);
    expect(theirs.body.run_id).toBe(platformRun);
    for (const [tok, c] of [
      [own.token, mine],
      [platform.token, theirs],
    ] as const) {
      await call(tok, `runs/${c.body.run_id}/finish`, { claim_token: c.body.claim_token, outcome: { status: "succeeded" }, usage: [] });
    }
    // Back to the platform's pool: a queued run follows the org's choice at claim time.
    const queued = await launch(team.id);
    await s.admin.patch(`/api/admin/orgs/${acme.id}`, { runner_pool: "platform" });
    expect((await claim(own.token)).status).toBe(204);
    const moved = await claim(platform.token);
    expect(moved.body.run_id).toBe(queued);
    await call(platform.token, `runs/${queued}/finish`, { claim_token: moved.body.claim_token, outcome: { status: "succeeded" }, usage: [] });
  });

  it("waits in a claim until a run is queued, and answers 204 when the wait ends", async () => {
    const runner = (await s.admin.post("/api/admin/runners", { name: "waiter" })).body;
    const empty = await call(runner.token, "claim", { wait_seconds: 1 });
    expect(empty.status).toBe(204);
    const waiting = call(runner.token, "claim", { wait_seconds: 20 });
    await new Promise((r) => setTimeout(r, 300));
    const runId = await launch(s.team.id);
    const got = await waiting;
    expect(got.body.run_id).toBe(runId);
    await call(runner.token, `runs/${runId}/finish`, { claim_token: got.body.claim_token, outcome: { status: "succeeded" }, usage: [] });
  });

  it("counts claims, connected runners and heartbeat errors per pool, with no tenant label", async () => {
    const runner = (await s.admin.post("/api/admin/runners", { name: "metrics" })).body;
    const runId = await launch(s.team.id);
    const c = await claim(runner.token);
    await call(runner.token, `runs/${runId}/heartbeat`, { claim_token: c.body.claim_token, missed_heartbeats: 4 });
    await call(runner.token, `runs/${runId}/finish`, { claim_token: c.body.claim_token, outcome: { status: "succeeded" }, usage: [] });
    expect(await metric('service_runner_claims_total{pool="platform",result="claimed"}')).toEqual([expect.stringMatching(/ [1-9]\d*$/)]);
    expect(await metric('service_runner_claims_total{pool="org",result="empty"}')).toEqual([expect.stringMatching(/ [1-9]\d*$/)]);
    expect(await metric('service_runner_heartbeat_errors_total{pool="platform"}')).toEqual([expect.stringMatching(/ 4$/)]);
    expect((await metric('service_runners_connected{pool="platform"}'))[0]).toMatch(/ [1-9]\d*$/);
    t.clock.advance(10 * 60_000);
    expect(await metric('service_runners_connected{pool="platform"}')).toEqual(['service_runners_connected{pool="platform"} 0']);
    expect((await metric("service_runner")).join("\n")).not.toMatch(/org_id|team_id|org_/);
  });
});

describe.each(storeKinds())("the runner protocol's ticket of a bot the bots file limits, on %s", (kind) => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "bots-"));
    const bots = { "review-pr": { command: ["node", "examples/summarise-vars.mjs"], timeout_seconds: 60, limits: { memory_mib: 512, processes: 0 } } };
    writeFileSync(path.join(dir, "bots.json"), JSON.stringify(bots));
    t = await startTestApp(kind, { SERVICE_BOTS_FILE: path.join(dir, "bots.json") });
    await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("hands the limits with the ticket as the document names them, and refuses a usage line with a field it does not know", async () => {
    const s = await seedTenancy(t);
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/runner/v1`;
    const runner = (await s.admin.post("/api/admin/runners", { name: "limits" })).body;
    const call = async (p: string, body: unknown) => {
      const res = await fetch(`${base}/${p}`, {
        method: "POST",
        headers: { authorization: `Bearer ${runner.token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const launched = await s.admin.post("/api/runs", { team_id: s.team.id, bot: "review-pr" });
    expect(launched.body).toMatchObject({ bot_id: "review-pr" });
    const runId = launched.body.id;
    const claimed = await call("claim", { wait_seconds: 0 });
    expect(claimed.body).toMatchObject({ run_id: runId, bot: { id: "review-pr", limits: { memory_mib: 512, processes: 0 } } });
    const token = claimed.body.claim_token;
    const usage = [{ id: "u1", cost_usd: 0.1, input_tokens: 1, output_tokens: 1, tier: "team", amount_type: "metered" }];
    expect((await call(`runs/${runId}/finish`, { claim_token: token, outcome: { status: "succeeded" }, usage: [{ ...usage[0], gpu: 1 }] })).status).toBe(400);
    expect((await call(`runs/${runId}/finish`, { claim_token: token, outcome: { status: "succeeded" }, usage })).body).toEqual({ finished: true });
    // Every answer above was checked against the document (the harness fails the file otherwise).
    expect(t.answersChecked).toEqual(expect.arrayContaining(["POST /api/runner/v1/claim → 200", "POST /api/runner/v1/runs/:id/finish → 200"]));
  });
});
