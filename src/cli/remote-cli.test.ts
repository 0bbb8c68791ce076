import { execFile, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubExample, loadGithubExamples } from "../intake/fixtures/fixtures.js";
import { FakeGitHub } from "../test-support/fake-forges/fake-github.js";
import { FakeHooks } from "../test-support/fake-forges/fake-hooks.js";
import { WORLD } from "../test-support/fake-forges/world.js";
import { client, freePort, seedTenancy, startListeningTestApp, startTestApp, type TestApp } from "../test-support/harness.js";
import { buildProgram } from "./program.js";

/** The compiled CLI, as `npx remote` runs it (`npm test` builds dist/ first). */
const MAIN = new URL("../../dist/cli/main.js", import.meta.url).pathname;
const examples = loadGithubExamples();

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

// The CLI speaks HTTP only, so one store suffices: the API's own suites cover both stores.
describe("the remote CLI against the service", () => {
  let t: TestApp;
  let seed: Awaited<ReturnType<typeof seedTenancy>>;
  let url: string;
  let home: string;

  beforeAll(async () => {
    // Listening at its own SERVICE_BASE_URL, so a test delivery comes back to it over the network.
    const listening = await startListeningTestApp("sqlite", { SERVICE_WEBHOOK_SYNC_DEBOUNCE: "0" });
    t = listening;
    url = listening.url;
    seed = await seedTenancy(t);
    home = mkdtempSync(path.join(os.tmpdir(), "remote-cli-"));
  });
  afterAll(async () => {
    await t.close();
    rmSync(home, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: path.join(home, "config"), ...extra });
  const remote = (args: string[], extra: Record<string, string> = {}) =>
    new Promise<Ran>((resolve) => {
      execFile(process.execPath, [MAIN, ...args], { env: env(extra) }, (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
  const as = (token: string) => (args: string[]) => remote(args, { SERVICE_URL: url, SERVICE_TOKEN: token });
  const deliver = (hook: { id: string; token: string }, sha: string) => {
    const p = githubExample(examples, "pull_request", "opened") as any;
    p.pull_request.head.sha = sha;
    p.pull_request.draft = false;
    const body = JSON.stringify(p);
    const signature = createHmac("sha256", hook.token).update(body).digest("hex");
    return t.app.inject({
      method: "POST",
      url: `/api/webhooks/forge_b/${hook.id}`,
      payload: body,
      headers: { "content-type": "application/json", "x-github-event": "pull_request", "x-hub-signature-256": `sha256=${signature}` },
    });
  };

  it("signs in with a token, saves it readable by the owner only, and lists orgs as a table or JSON", async () => {
    const login = await remote(["login", "--url", url, "--token", t.adminToken]);
    expect(login).toMatchObject({ code: 0, stderr: "" });
    expect(login.stdout).toContain("as admin");
    const file = path.join(home, "config", "remote", "config.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ url, token: t.adminToken });

    const listed = await remote(["orgs", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+STATUS/);
    expect(listed.stdout).toMatch(new RegExp(`${seed.org.id}\\s+Acme\\s+active`));
    expect(JSON.parse((await remote(["--json", "orgs", "list"])).stdout).orgs.map((o: { id: string }) => o.id)).toContain(seed.org.id);
    // A member sees the orgs they belong to, with their role.
    expect((await as(seed.member.token)(["orgs", "list"])).stdout).toMatch(new RegExp(`${seed.org.id}\\s+Acme\\s+member`));
  });

  it("signs in with a password, and prints the API's refusal with exit 1", async () => {
    const reset = (await seed.admin.post(`/api/admin/users/${seed.teamAdmin.id}/password-reset`)).body.token;
    await client(t.app).post("/api/auth/password-reset/confirm", { token: reset, password: "team admin passphrase" });
    const other = path.join(home, "other");
    const wrong = await remote(["login", "--url", url, "--login", "team-admin", "--password", "not it at all"], { XDG_CONFIG_HOME: other });
    expect(wrong).toMatchObject({ code: 1, stdout: "" });
    expect(wrong.stderr).toContain("unauthenticated: login or password is wrong");
    const ok = await remote(["login", "--url", url, "--login", "team-admin", "--password", "team admin passphrase"], { XDG_CONFIG_HOME: other });
    expect(ok.code).toBe(0);
    const saved = JSON.parse(readFileSync(path.join(other, "remote", "config.json"), "utf8"));
    expect(saved.token).toMatch(/^ses_/);
    expect((await remote(["teams", "list", seed.org.id], { XDG_CONFIG_HOME: other })).stdout).toContain(seed.team.id);

    // Logging out ends the session on the service and drops the token from the file.
    expect((await remote(["logout"], { XDG_CONFIG_HOME: other })).code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(other, "remote", "config.json"), "utf8"))).toEqual({ url });
    expect((await client(t.app, saved.token).get("/api/users/me")).status).toBe(401);
    expect((await remote(["teams", "list", seed.org.id], { XDG_CONFIG_HOME: other })).code).toBe(2);
  });

  it("sets a team's status as an org admin, refuses a team admin (1) and a bad status (2)", async () => {
    const orgAdmin = as(seed.orgAdmin.token);
    const suspended = await orgAdmin(["teams", "status", seed.team.id, "suspended"]);
    expect(suspended.code).toBe(0);
    expect(suspended.stdout).toMatch(/status\s+suspended/);
    expect((await seed.member.api.get(`/api/teams/${seed.team.id}`)).body.status).toBe("suspended");
    const refused = await as(seed.teamAdmin.token)(["teams", "status", seed.team.id, "active"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("forbidden: org admin role required to change status (HTTP 403)");
    expect((await orgAdmin(["teams", "status", seed.team.id, "paused"])).code).toBe(2);
    expect((await orgAdmin(["teams", "status", seed.team.id])).code).toBe(2);
    expect(JSON.parse((await orgAdmin(["--json", "teams", "status", seed.team.id, "active"])).stdout).status).toBe("active");
  });

  it("sets a team's board as a team admin, shows it in the team list, refuses a member (1) and a bad mode (2)", async () => {
    const admin = as(seed.teamAdmin.token);
    const tracked = await admin(["teams", "board", seed.team.id, "track"]);
    expect([tracked.code, tracked.stdout]).toEqual([0, expect.stringMatching(/board_mode\s+track/)]);
    expect((await seed.member.api.get(`/api/teams/${seed.team.id}`)).body.board_mode).toBe("track");
    expect((await admin(["teams", "list", seed.org.id])).stdout).toMatch(
      new RegExp(`^ID\\s+NAME\\s+STATUS\\s+BOARD\n[\\s\\S]*${seed.team.id}\\s+Platform\\s+\\S+\\s+track$`, "m"),
    );
    const refused = await as(seed.member.token)(["teams", "board", seed.team.id, "coordinate"]);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining("(HTTP 403)")]);
    const bad = await admin(["teams", "board", seed.team.id, "on"]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("Allowed choices are off, track, coordinate")]);
    expect(JSON.parse((await admin(["--json", "teams", "board", seed.team.id, "off"])).stdout).board_mode).toBe("off");
    expect((await seed.member.api.get(`/api/teams/${seed.team.id}`)).body.board_mode).toBe("off");
  });

  it("creates a webhook printing its token once, lists, disables, enables and rotates it", async () => {
    const admin = as(seed.teamAdmin.token);
    const created = await admin(["--json", "webhooks", "create", seed.team.id, "--provider", "github", "--bot", "review-pr", "--set", "rate=2"]);
    expect(created.code).toBe(0);
    const { config, token } = JSON.parse(created.stdout);
    expect([config.provider, config.rate, config.bot_ids, token]).toEqual(["forge_b", 2, ["review-pr"], expect.stringMatching(/^wh_/)]);
    const human = await admin(["webhooks", "create", seed.team.id, "--provider", "forge_b", "--bot", "review-pr"]);
    expect(human.stdout).toMatch(/Token \(shown once, paste it into the forge\): wh_/);
    const list = await admin(["webhooks", "list", seed.team.id]);
    expect(list.stdout).toMatch(new RegExp(`${config.id}\\s+\\S+\\s+forge_b\\s+true\\s+review-pr\\s+http://\\S+/api/webhooks/forge_b/${config.id}`));
    expect(list.stdout).not.toContain(token);
    expect((await admin(["webhooks", "disable", seed.team.id, config.id])).stdout).toMatch(/enabled\s+false/);
    expect((await seed.member.api.get(`/api/teams/${seed.team.id}/webhooks/${config.id}`)).body.enabled).toBe(false);
    expect((await admin(["webhooks", "enable", seed.team.id, config.id])).stdout).toMatch(/enabled\s+true/);
    const rotated = JSON.parse((await admin(["--json", "webhooks", "rotate", seed.team.id, config.id])).stdout).token;
    expect(rotated).toMatch(/^wh_/);
    expect(rotated).not.toBe(token);
    const overlapped = await admin(["webhooks", "rotate", seed.team.id, config.id, "--overlap", "600"]);
    expect(overlapped.stdout).toMatch(/New token \(shown once\): wh_\S+\nThe old token is accepted until (\S+)\./);
    expect(overlapped.stdout).toContain(new Date(t.clock.now() + 600_000).toISOString());
    expect((await admin(["webhooks", "rotate", seed.team.id, config.id, "--overlap", "soon"])).code).toBe(2);
    const tooLong = await admin(["webhooks", "rotate", seed.team.id, config.id, "--overlap", "86401"]);
    expect([tooLong.code, tooLong.stderr]).toEqual([1, expect.stringContaining("overlap_seconds")]);
    expect((await as(seed.member.token)(["webhooks", "disable", seed.team.id, config.id])).code).toBe(1);
    expect((await admin(["webhooks", "create", seed.team.id, "--provider", "forge_b", "--set", "nonsense"])).code).toBe(2);
  });

  it("lists deliveries and follows new ones as they arrive", async () => {
    const made = (await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] })).body;
    const hook = { id: made.config.id as string, token: made.token as string };
    await deliver(hook, "a".repeat(40));
    const member = as(seed.member.token);
    const listed = await member(["deliveries", "list", seed.team.id, hook.id]);
    expect(listed.stdout.split("\n")[0]).toMatch(/^CREATED\s+ID\s+STATUS\s+EVENT\s+RUN\s+REASON/);
    expect(listed.stdout).toMatch(/launched\s+pull_request\.opened\s+run_/);
    const id = JSON.parse((await member(["--json", "deliveries", "list", seed.team.id, hook.id])).stdout).deliveries[0].id;
    const shown = await member(["deliveries", "show", seed.team.id, hook.id, id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/decided_by\s+gate/);
    expect(shown.stdout).toMatch(/gate\s+decided\s+launched run run_/);
    expect((await member(["deliveries", "show", seed.team.id, hook.id, "dlv_none"])).code).toBe(1);

    const follow = spawn(process.execPath, [MAIN, "--json", "deliveries", "list", seed.team.id, hook.id, "--follow", "--interval", "1"], {
      env: env({ SERVICE_URL: url, SERVICE_TOKEN: seed.member.token }),
    });
    try {
      const lines: any[] = [];
      let buffered = "";
      follow.stdout.on("data", (chunk: Buffer) => {
        buffered += chunk.toString();
        const parts = buffered.split("\n");
        buffered = parts.pop()!;
        lines.push(...parts.filter(Boolean).map((l) => JSON.parse(l)));
      });
      const waitFor = async (n: number) => {
        for (let i = 0; lines.length < n; i++) {
          if (i > 200) throw new Error(`only ${lines.length} lines`);
          await sleep(100);
        }
      };
      await waitFor(1);
      await deliver(hook, "b".repeat(40));
      await waitFor(2);
      expect(lines.map((l) => l.subject_sha)).toEqual(["a".repeat(40), "b".repeat(40)]);
    } finally {
      follow.kill();
    }
  });

  it("sends a kept delivery again as a team admin, under the event's key or a fresh one", async () => {
    const made = (await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] })).body;
    const hook = { id: made.config.id as string, token: made.token as string };
    await deliver(hook, "d".repeat(40));
    const member = as(seed.member.token);
    const id = JSON.parse((await member(["--json", "deliveries", "list", seed.team.id, hook.id])).stdout).deliveries[0].id;
    // Not kept (keep_payloads is off): refused with the API's reason; then kept and sent again.
    const notKept = await as(seed.teamAdmin.token)(["deliveries", "redeliver", seed.team.id, hook.id, id]);
    expect([notKept.code, notKept.stderr]).toEqual([1, expect.stringContaining("keep_payloads")]);
    await seed.teamAdmin.api.patch(`/api/teams/${seed.team.id}/webhooks/${hook.id}`, { keep_payloads: true });
    await deliver(hook, "c".repeat(40));
    const kept = JSON.parse((await member(["--json", "deliveries", "list", seed.team.id, hook.id, "--limit", "1"])).stdout).deliveries[0].id;
    expect((await member(["deliveries", "redeliver", seed.team.id, hook.id, kept])).code).toBe(1);
    const again = await as(seed.teamAdmin.token)(["deliveries", "redeliver", seed.team.id, hook.id, kept]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/outcome\s+duplicate/);
    expect(again.stdout).toMatch(/proof\s+verified_again/);
    const fresh = await as(seed.teamAdmin.token)(["deliveries", "redeliver", seed.team.id, hook.id, kept, "--fresh-key"]);
    expect(fresh.stdout).toMatch(/outcome\s+launched/);
    const ping = await as(seed.teamAdmin.token)(["webhooks", "ping", seed.team.id, hook.id]);
    expect([ping.code, ping.stdout]).toEqual([
      0,
      expect.stringMatching(/url\s+http:\/\/127\.0\.0\.1:\d+\/api\/webhooks\/forge_b\/\S+\s+reached\s+true[\s\S]*outcome\s+filtered/),
    ]);
    expect(ping.stdout).toMatch(/Hint: This service answered, but SERVICE_BASE_URL \(127\.0\.0\.1\) is a loopback address/);
  });

  it("pings a service whose SERVICE_BASE_URL reaches nothing: prints the refusal and the hint, exits 1", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const lost = await startTestApp("sqlite", { SERVICE_BASE_URL: closed });
    try {
      await lost.app.listen({ port: 0, host: "127.0.0.1" });
      const at = `http://127.0.0.1:${(lost.app.server.address() as AddressInfo).port}`;
      const s = await seedTenancy(lost);
      const hook = (await s.teamAdmin.api.post(`/api/teams/${s.team.id}/webhooks`, { provider: "forge_b", bot_ids: ["review-pr"] })).body.config.id;
      const ping = await remote(["webhooks", "ping", s.team.id, hook], { SERVICE_URL: at, SERVICE_TOKEN: s.teamAdmin.token });
      expect(ping.code).toBe(1);
      expect(ping.stdout).toMatch(/reached\s+false[\s\S]*outcome\s+unreachable \(refused\)\s+reason\s+connect ECONNREFUSED/);
      expect(ping.stdout).toContain(`Hint: Nothing accepts connections at ${closed}. SERVICE_BASE_URL must be the address forges call`);
      expect(ping.stderr).toBe("remote: unreachable (refused): the test delivery did not land\n");
    } finally {
      await lost.close();
    }
  });

  it("lists, shows, cancels and resumes runs; a refused resume exits 1 with the API's error", async () => {
    await seed.orgAdmin.api.patch(`/api/teams/${seed.team.id}`, { status: "active" });
    const run = (await seed.member.api.post("/api/runs", { team_id: seed.team.id, bot: "review-pr", vars: {} })).body.id;
    const member = as(seed.member.token);
    expect((await member(["runs", "list", seed.team.id, "--status", "queued"])).stdout).toMatch(new RegExp(`${run}\\s+queued\\s+review-pr`));
    const queued = (await member(["runs", "show", run])).stdout;
    expect(queued).toMatch(/status\s+queued/);
    expect(queued).toContain("Usage: $0, 0 input and 0 output tokens (0 reports)");
    expect(JSON.parse((await member(["--json", "runs", "cancel", run])).stdout).status).toBe("cancelled");
    const resumed = await member(["runs", "resume", run]);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toMatch(/^remote: \w+: .+\(HTTP 4\d\d\)\n$/);
    expect((await member(["runs", "list", seed.team.id, "--limit", "0"])).code).toBe(2);
    expect((await as(seed.outsider.token)(["runs", "show", run])).stderr).toContain("not_found");
  });

  it("prints a run's output, and with --follow reads on until the attempt ends", async () => {
    await t.store.db.updateTable("runs").set({ status: "cancelled" }).where("status", "=", "queued").execute();
    const run = (await seed.member.api.post("/api/runs", { team_id: seed.team.id, bot: "review-pr" })).body.id;
    const member = as(seed.member.token);
    const follow = spawn(process.execPath, [MAIN, "runs", "logs", run, "--follow", "--interval", "1"], {
      env: env({ SERVICE_URL: url, SERVICE_TOKEN: seed.member.token }),
    });
    let out = "";
    follow.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const ended = new Promise<number>((resolve) => follow.on("close", (code) => resolve(code ?? 1)));
    const claim = (await t.services.runQueue.claim("w", 60_000))!;
    expect(claim.run.id).toBe(run);
    await t.services.runLogs.append(run, 1, [{ stream: "stdout", text: "step one\n" }]);
    expect((await member(["runs", "logs", run])).stdout).toBe("step one\n");
    await t.services.runLogs.append(run, 1, [{ stream: "stderr", text: "\u001b[31mstep two\n" }]);
    await t.services.runQueue.finish(claim, { status: "succeeded" });
    expect(await ended).toBe(0);
    expect(out).toBe("step one\n?[31mstep two\n");
    const json = await member(["--json", "runs", "logs", run, "--attempt", "1"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ attempt: 1, offset: 0, complete: true, text: "step one\n\u001b[31mstep two\n" });
    expect((await member(["runs", "logs", run, "--attempt", "2"])).stderr).toContain("attempt not found");
    expect((await as(seed.outsider.token)(["runs", "logs", run])).stderr).toContain("not_found");
  });

  it("shows the question a run waits on and answers it", async () => {
    await t.store.db.updateTable("runs").set({ status: "cancelled" }).where("status", "=", "queued").execute();
    const run = (await seed.member.api.post("/api/runs", { team_id: seed.team.id, bot: "review-pr" })).body.id;
    const claim = (await t.services.runQueue.claim("w", 60_000))!;
    const question = { text: "Which branch?", choices: ["main", "next"] };
    await t.services.runQueue.finish(claim, { status: "failed_resumable", failureCode: "QUESTION", detail: question.text, question });
    const member = as(seed.member.token);
    const asked = (await member(["runs", "show", run])).stdout;
    expect(asked).toMatch(/question\s+\{"text":"Which branch\?","choices":\["main","next"\]\}/);
    expect(asked).toMatch(/^ATTEMPT\s+STATUS\s+FAILURE\s+STARTED\s+FINISHED\s+KEYS$/m);
    expect(asked).toMatch(/^1\s+\S+/m);
    const wrong = await member(["runs", "answer", run, "develop"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("the answer must be one of: main, next");
    const answered = await member(["runs", "answer", run, "next"]);
    expect(answered.code).toBe(0);
    expect(answered.stdout).toMatch(/answer\s+next/);
    expect((await member(["runs", "answer", run, "main"])).stderr).toContain("the run is not waiting for an answer");
  });

  it("shows an org's usage and a team's credential ledger for a month", async () => {
    const usage = await as(seed.orgAdmin.token)(["usage", seed.org.id]);
    expect(usage.code).toBe(0);
    expect(usage.stdout).toMatch(/runs_this_month\s+\d+/);
    const daily = await as(seed.member.token)(["usage", seed.org.id, "--daily", "--month", "2026-02"]);
    expect(daily.code).toBe(0);
    expect(daily.stdout.split("\n").slice(0, 3)).toEqual([
      "Month 2026-02",
      expect.stringMatching(/^DATE\s+RUNS\s+COST USD/),
      expect.stringMatching(/^2026-02-01\s+0\s+0$/),
    ]);
    expect(daily.stdout.trim().split("\n")).toHaveLength(2 + 28);
    const badDaily = await as(seed.member.token)(["usage", seed.org.id, "--daily", "--month", "Feb"]);
    expect(badDaily.code).toBe(1);
    expect(badDaily.stderr).toMatch(/month/);
    const ledger = await as(seed.member.token)(["ledger", seed.team.id, "--month", "2026-10"]);
    expect(ledger.stdout.split("\n").slice(0, 2)).toEqual(["Month 2026-10", expect.stringMatching(/^FINGERPRINT\s+PROVIDER\s+TIER/)]);
    const bad = await as(seed.member.token)(["ledger", seed.team.id, "--month", "October"]);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining("invalid_request: month must be YYYY-MM")]);
  });

  it("lists a team's repo bots, reads a hook's health and repairs it as a team admin", async () => {
    const gh = await FakeGitHub.start();
    try {
      const hooks = FakeHooks.mount(gh.server, "github");
      const c = await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/connections`, {
        provider: "github",
        base_url: gh.server.url,
        token: "ghp_cli",
      });
      const rb = (await seed.teamAdmin.api.post(`/api/teams/${seed.team.id}/forge/repo-bots`, { connection_id: c.body.id, repo: WORLD.repo })).body;
      const member = as(seed.member.token);
      expect((await member(["repo-bots", "list", seed.team.id])).stdout).toMatch(new RegExp(`${rb.id}\\s+${WORLD.repo}\\s+${rb.webhook_id}\\s+${rb.hook_id}`));
      expect((await member(["repo-bots", "health", seed.team.id, rb.id])).stdout).toMatch(/status\s+healthy/);
      hooks.disable(hooks.of()[0]!);
      const broken = (await member(["repo-bots", "health", seed.team.id, rb.id])).stdout;
      expect(broken).toMatch(/status\s+broken/);
      expect(broken).toMatch(/not active/);
      expect(broken).toMatch(/^hook_disabled\s+the hook is switched off on the forge; repair enables it$/m);
      expect((await member(["repo-bots", "repair", seed.team.id, rb.id])).code).toBe(1);
      const repaired = await as(seed.teamAdmin.token)(["--json", "repo-bots", "repair", seed.team.id, rb.id]);
      expect(JSON.parse(repaired.stdout)).toMatchObject({ status: "healthy", hook: { active: true } });
      const admin = as(seed.teamAdmin.token);
      expect((await admin(["repo-bots", "rotate", seed.team.id, rb.id])).stdout).toMatch(
        /^Hook \d+ of acme\/widgets has a fresh token\. The old one is accepted until \S+Z\.$/m,
      );
      expect((await admin(["repo-bots", "rotate", seed.team.id, rb.id, "--overlap", "0"])).stdout).toMatch(/The old one is refused\.$/m);
      expect((await admin(["repo-bots", "rotate", seed.team.id, rb.id, "--overlap", "soon"])).code).toBe(2);
      // The gate settings: shown to a member, set by a team admin through a provision that writes nothing to the forge.
      const gate = (await member(["repo-bots", "gate", seed.team.id, rb.id])).stdout;
      expect(gate).toMatch(/gate_context\s+-?\s*\n[\s\S]*review_after_gate\s+false/);
      expect((await member(["repo-bots", "gate", seed.team.id, rb.id, "--review-after-gate", "on"])).code).toBe(1);
      const set = await admin(["repo-bots", "gate", seed.team.id, rb.id, "--review-after-gate", "on", "--context", "ci/test"]);
      expect(set.code).toBe(0);
      expect(set.stdout).toMatch(/gate_context\s+ci\/test\s+auto_fix_on_gate_failure\s+false\s+review_after_gate\s+true\s+forge_written\s+false/);
      const stored = (await seed.member.api.get(`/api/teams/${seed.team.id}/forge/repo-bots`)).body.repo_bots.find((b: { id: string }) => b.id === rb.id);
      expect(stored).toMatchObject({ gate_context: "ci/test", review_after_gate: true, auto_fix_on_gate_failure: false, hook_id: rb.hook_id });
      const off = JSON.parse((await admin(["--json", "repo-bots", "gate", seed.team.id, rb.id, "--review-after-gate", "off"])).stdout);
      expect(off).toMatchObject({ gate_context: "ci/test", review_after_gate: false, forge_written: false });
      expect((await admin(["repo-bots", "gate", seed.team.id, rb.id, "--review-after-gate", "yes"])).code).toBe(2);
      const unknown = await admin(["repo-bots", "gate", seed.team.id, "rbt_nope", "--auto-fix", "on"]);
      expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining("not_found: repo bot not found")]);
    } finally {
      await gh.server.close();
    }
  });

  it("refuses without a sign-in (2) and says so when the service cannot be reached (1)", async () => {
    const none = await remote(["orgs", "list"], { XDG_CONFIG_HOME: path.join(home, "empty") });
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining("not signed in")]);
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const closed = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise((resolve) => probe.close(resolve));
    const down = await remote(["orgs", "list"], { SERVICE_URL: closed, SERVICE_TOKEN: "iap_x" });
    expect([down.code, down.stderr]).toEqual([1, expect.stringContaining(`cannot reach ${closed}: connect ECONNREFUSED`)]);
  });

  it("prints its version, calls any route with `api` (a body inline or from a file), and exits 1 on a refusal, 2 on a bad command line", async () => {
    const version = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;
    expect(await remote(["--version"])).toMatchObject({ code: 0, stdout: `${version}\n` });
    const admin = as(t.adminToken);
    const me = await admin(["api", "GET", "/api/users/me"]);
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({ login: "admin" });
    const created = await admin(["api", "post", "/api/admin/orgs", "--data", '{"name":"Made by api"}']);
    expect([created.code, JSON.parse(created.stdout).name]).toEqual([0, "Made by api"]);
    const file = path.join(home, "org.json");
    writeFileSync(file, JSON.stringify({ name: "From a file" }));
    expect(JSON.parse((await admin(["api", "POST", "/api/admin/orgs", "--data", `@${file}`])).stdout).name).toBe("From a file");
    const refused = await as(seed.member.token)(["api", "GET", "/api/admin/orgs"]);
    expect([refused.code, refused.stdout]).toEqual([1, ""]);
    expect(refused.stderr).toMatch(/forbidden: .* \(HTTP 403\)/);
    expect((await admin(["api", "FETCH", "/api/users/me"])).code).toBe(2);
    expect((await admin(["api", "POST", "/api/admin/orgs", "--data", "{not json"])).code).toBe(2);
    // A password change asks on the terminal; without one it says so (2) and changes nothing.
    const password = await admin(["password"]);
    expect([password.code, password.stderr]).toEqual([2, "remote: Current password not given (no terminal to ask on)\n"]);
  });

  it("answers --help on every command", async () => {
    const walk = (cmd: Command, names: string[]): string[][] => [names, ...cmd.commands.flatMap((c) => walk(c, [...names, c.name()]))];
    for (const names of walk(buildProgram(), [])) {
      const help = await remote([...names, "--help"]);
      expect(help.code, names.join(" ")).toBe(0);
      expect(help.stdout, names.join(" ")).toContain(`Usage: remote${names.map((n) => ` ${n}`).join("")}`);
    }
  });
});
