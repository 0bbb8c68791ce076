import { spawn, type ChildProcess } from "node:child_process";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PRODUCT } from "../../core/product.js";
import { startTracing, stopTracing } from "../../core/tracing.js";
import { seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";
import { FakeCollector, SPAN_CLIENT, SPAN_SERVER } from "../../test-support/otlp-collector.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** `npm test` builds dist/ first: this is the runner an operator starts with `npm run runner`. */
const RUNNER_MAIN = path.join(ROOT, "dist/runner-main.js");

interface RunnerProcess {
  proc: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** `node dist/runner-main.js` (or another entry and arguments) with exactly the environment given (no PATH, no HOME unless given). */
function startRunnerProcess(env: Record<string, string>, argv: string[] = [RUNNER_MAIN]): RunnerProcess {
  const proc = spawn(process.execPath, argv, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout!.on("data", (c: Buffer) => (out += c.toString("utf8")));
  proc.stderr!.on("data", (c: Buffer) => (out += c.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  return { proc, output: () => out, exited };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.each(storeKinds())("a runner process with a URL and a token alone, on %s", (kind) => {
  let t: TestApp;
  let s: Seed;
  let url: string;
  const started: RunnerProcess[] = [];
  const runner = (env: Record<string, string>, argv?: string[]) => {
    const r = startRunnerProcess(env, argv);
    started.push(r);
    return r;
  };

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    for (const r of started.splice(0)) {
      if (r.proc.exitCode === null && r.proc.signalCode === null) r.proc.kill("SIGKILL");
      await r.exited;
    }
  });
  afterAll(() => t.close());

  it("executes a delivered run end to end: its usage reaches the org's usage and the credential ledger", async () => {
    const token = (await s.admin.post("/api/admin/runners", { name: "separate" })).body.token;
    const hook = (await s.teamAdmin.api.post(`/api/teams/${s.team.id}/webhooks`, { provider: "generic", bot_ids: ["review-pr"] })).body;
    const delivered = await t.app.inject({
      method: "POST",
      url: `/api/webhooks/generic/${hook.config.id}`,
      payload: { bot: "review-pr", vars: { title: "Fix the flaky test" }, repo_url: "https://forge.example/acme/app.git" },
      headers: { "x-service-webhook-token": hook.token },
    });
    const runId = JSON.parse(delivered.body).run_id as string;
    expect(runId).toEqual(expect.any(String));

    const r = runner({ SERVICE_RUNNER_URL: url, SERVICE_RUNNER_TOKEN: token });
    // The usage is recorded before the run is seen ended.
    const done = await until("the run to end", async () => {
      const view = (await s.member.api.get(`/api/runs/${runId}`)).body;
      return view.status === "succeeded" || view.status === "failed" ? view : undefined;
    });
    expect(done, r.output()).toMatchObject({ status: "succeeded", attempt: 1 });
    expect(done.usage.cost_usd).toBeGreaterThan(0);
    const usage = (await s.member.api.get(`/api/orgs/${s.org.id}/usage`)).body;
    expect(usage.cost_usd_this_month).toBeGreaterThanOrEqual(done.usage.cost_usd);
    const ledger = (await s.member.api.get(`/api/teams/${s.team.id}/credentials/usage?repo=acme/app`)).body;
    expect(ledger.credentials).toEqual([expect.objectContaining({ fingerprint: "example-local", provider: "example", estimated_usd: done.usage.cost_usd })]);
    const log = await s.member.api.call("GET", `/api/runs/${runId}/attempts/1/log`);
    expect(String(log.body)).toContain("review bot, run");

    // SIGTERM while idle: a clean stop.
    r.proc.kill("SIGTERM");
    expect(await r.exited).toBe(0);
  });

  it("says it ignores the house's variables, and stops with a clear message when its token is revoked", async () => {
    const minted = (await s.admin.post("/api/admin/runners", { name: "to-revoke" })).body;
    const r = runner({
      SERVICE_RUNNER_URL: url,
      SERVICE_RUNNER_TOKEN: minted.token,
      SERVICE_DATABASE_URL: "postgres://house@db.example/service",
      SERVICE_SEAL_KEY: Buffer.alloc(32, 1).toString("base64"),
      SERVICE_PLATFORM_KEY_ANTHROPIC: "sk-house",
    });
    await until("the runner to call", async () =>
      (await s.admin.get("/api/admin/runners")).body.runners.find((x: { id: string; status: string }) => x.id === minted.id)?.status === "online"
        ? true
        : undefined,
    );
    const warning = '"ignored":["SERVICE_DATABASE_URL","SERVICE_PLATFORM_KEY_ANTHROPIC","SERVICE_SEAL_KEY"]';
    await until("the runner's warning", async () => (r.output().includes(warning) ? true : undefined), 10_000).catch(() => undefined);
    expect(r.output()).toContain(warning);
    expect(r.output()).not.toContain("sk-house");
    expect((await s.admin.delete(`/api/admin/runners/${minted.id}`)).status).toBe(204);
    expect(await r.exited).toBe(3);
    expect(r.output()).toContain("the service refused its token");
  });

  it("runs as `remote runner` with the URL and token given as options", async () => {
    const minted = (await s.admin.post("/api/admin/runners", { name: "cli" })).body;
    const runId = (await s.admin.post("/api/runs", { team_id: s.team.id, bot: "converse" })).body.id;
    const r = runner({}, [path.join(ROOT, "dist/cli/main.js"), "runner", "--url", url, "--token", minted.token, "--name", "cli-host"]);
    const done = await until("the run to end", async () => {
      const view = (await s.admin.get(`/api/runs/${runId}`)).body;
      return view.status === "succeeded" || view.status === "failed" ? view : undefined;
    });
    expect(done.status, r.output()).toBe("succeeded");
    const attempt = await t.store.db.selectFrom("run_attempts").select("claimed_by").where("run_id", "=", runId).executeTakeFirstOrThrow();
    expect(attempt.claimed_by).toBe(`cli/cli-host (${minted.id})`);
    r.proc.kill("SIGTERM");
    expect(await r.exited).toBe(0);
  });

  it("with OTEL_* set, traces its claim, the attempt, its output and finish, each call continued by the service's span, the run named on both sides", async () => {
    const collector = new FakeCollector();
    await collector.start();
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: "50" };
    Object.assign(process.env, otel);
    try {
      expect(await startTracing(PRODUCT)).toMatchObject({ on: true });
      const token = (await s.admin.post("/api/admin/runners", { name: "traced" })).body.token as string;
      const hook = (await s.teamAdmin.api.post(`/api/teams/${s.team.id}/webhooks`, { provider: "generic", bot_ids: ["review-pr"] })).body;
      const delivered = await t.app.inject({
        method: "POST",
        url: `/api/webhooks/generic/${hook.config.id}`,
        payload: { bot: "review-pr", vars: { title: "Traced flaky test" }, repo_url: "https://forge.example/acme/app.git" },
        headers: { "x-service-webhook-token": hook.token, traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
      });
      const runId = JSON.parse(delivered.body).run_id as string;
      const r = runner({ SERVICE_RUNNER_URL: url, SERVICE_RUNNER_TOKEN: token, ...otel });
      const done = await until("the run to end", async () => {
        const view = (await s.member.api.get(`/api/runs/${runId}`)).body;
        return view.status === "succeeded" || view.status === "failed" ? view : undefined;
      });
      expect(done.status, r.output()).toBe("succeeded");
      r.proc.kill("SIGTERM");
      expect(await r.exited, r.output()).toBe(0);
      await stopTracing();

      const spans = collector.spans;
      const named = (name: string) => spans.filter((x) => x.name === name && x.attributes["run.id"] === runId);
      // The delivery that launched the run names it, in the caller's trace.
      expect(named("delivery")[0]).toMatchObject({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", parentSpanId: "00f067aa0ba902b7" });
      // The runner: its claim, the attempt under it, the finish call under the attempt.
      const [claim] = named("runner.claim");
      const [attempt] = named("runner.attempt");
      const [finish] = named("runner.finish");
      expect(claim).toMatchObject({ kind: SPAN_CLIENT, attributes: { "runner.claimed": true, "run.attempt": 1 } });
      expect(attempt).toMatchObject({ traceId: claim!.traceId, parentSpanId: claim!.spanId, attributes: { "bot.id": "review-pr", "run.status": "succeeded" } });
      expect(finish).toMatchObject({ kind: SPAN_CLIENT, traceId: claim!.traceId, parentSpanId: attempt!.spanId });
      const outputs = named("runner.output");
      expect(outputs.length).toBeGreaterThan(0);
      for (const output of outputs) expect(output).toMatchObject({ kind: SPAN_CLIENT, traceId: claim!.traceId, parentSpanId: attempt!.spanId });
      // The service's side of each call is the runner's call's child (traceparent on the call).
      const served = (route: string) => spans.find((x) => x.name === `POST ${route}` && x.attributes["run.id"] === runId);
      expect(served("/api/runner/v1/claim")).toMatchObject({ kind: SPAN_SERVER, traceId: claim!.traceId, parentSpanId: claim!.spanId });
      expect(served("/api/runner/v1/runs/:id/finish")).toMatchObject({
        traceId: claim!.traceId,
        parentSpanId: finish!.spanId,
        attributes: { "run.status": "succeeded" },
      });
      expect(collector.resources).toContainEqual(expect.objectContaining({ "service.name": `${PRODUCT.name}-runner` }));
      // No token, no variable, no line of output.
      const attemptRow = await t.store.db.selectFrom("run_attempts").select("id").where("run_id", "=", runId).executeTakeFirstOrThrow();
      const text = collector.bodies.join("\n");
      for (const kept of [token, hook.token, attemptRow.id, "Traced flaky test", "review bot, run", "forge.example"]) expect(text, kept).not.toContain(kept);
    } finally {
      await stopTracing();
      for (const name of Object.keys(otel)) delete process.env[name];
      await collector.close();
    }
  });

  it("refuses to start without a URL and a token, saying which is missing", async () => {
    const r = runner({});
    expect(await r.exited).toBe(2);
    expect(r.output()).toMatch(/SERVICE_RUNNER_URL[\s\S]*SERVICE_RUNNER_TOKEN/);
  });
});
