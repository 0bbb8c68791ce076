import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpTransport, RunnerCallFailed } from "./http-transport.js";
import { RunnerTokenRefused, type AttemptTicket } from "./runner-transport.js";

/** A stand-in service: records each call and answers from `answer`, which may drop the connection. */
function fakeService() {
  const calls: { path: string; auth: string | undefined; body: any }[] = [];
  let answer: (path: string) => { status: number; body?: unknown } | "drop" = () => ({ status: 204 });
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      const path = req.url!.replace("/api/runner/v1/", "");
      calls.push({ path, auth: req.headers.authorization, body: JSON.parse(text) });
      const a = answer(path);
      if (a === "drop") return req.socket.destroy();
      res.writeHead(a.status, { "content-type": "application/json" });
      res.end(a.body === undefined ? "" : JSON.stringify(a.body));
    });
  });
  return {
    server,
    calls,
    answer: (fn: typeof answer) => {
      answer = fn;
    },
  };
}

const WIRE = {
  run_id: "run_1",
  attempt: 2,
  claim_token: "att_1",
  lease_seconds: 60,
  bot: { id: "review-pr", command: ["node", "bot.mjs"], timeout_seconds: 1.5, env: { MODE: "x" } },
  vars: { title: "t" },
  repo_url: "https://forge.example/a/b.git",
  repo_ref: "main",
  project_path: null,
  credentials: { BOT_KEY_EXAMPLE: "sk-1" },
};

describe("the runner protocol's HTTP transport", () => {
  const fake = fakeService();
  let transport: HttpTransport;
  let ticket: AttemptTicket;

  beforeAll(async () => {
    await new Promise<void>((r) => fake.server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/`;
    transport = new HttpTransport({ url, token: "rnr_test", host: "host-a", botsDir: "/srv/bots", claimWaitSeconds: 3 });
  });
  afterAll(() => new Promise<void>((r) => fake.server.close(() => r())));

  it("claims with its token and host; 204 is no attempt, 200 one attempt whose bot runs from this host's bots folder", async () => {
    fake.answer(() => ({ status: 204 }));
    expect(await transport.claim(new AbortController().signal)).toBeUndefined();
    expect(fake.calls.at(-1)).toEqual({ path: "claim", auth: "Bearer rnr_test", body: { wait_seconds: 3, host: "host-a" } });
    fake.answer(() => ({ status: 200, body: WIRE }));
    ticket = (await transport.claim(new AbortController().signal))!;
    expect(ticket).toEqual({
      runId: "run_1",
      attempt: 2,
      claimToken: "att_1",
      leaseMs: 60_000,
      bot: { id: "review-pr", command: ["node", "bot.mjs"], timeoutMs: 1500, env: { MODE: "x" }, providers: [], cwd: "/srv/bots" },
      input: {
        runId: "run_1",
        botId: "review-pr",
        attempt: 2,
        vars: { title: "t" },
        repoUrl: "https://forge.example/a/b.git",
        repoRef: "main",
        projectPath: null,
        answer: null,
      },
      credentials: { BOT_KEY_EXAMPLE: "sk-1" },
    });
  });

  it("runs the bot under the limits its ticket carries (0: none), leaving out one it does not know", async () => {
    const limits = { memory_mib: 1024, processes: 0, cpu_seconds: 30, gpu_seconds: 5 };
    fake.answer(() => ({ status: 200, body: { ...WIRE, bot: { ...WIRE.bot, limits } } }));
    const claimed = (await transport.claim(new AbortController().signal))!;
    expect(claimed.bot.limits).toEqual({ memoryMib: 1024, processes: null, cpuSeconds: 30 });
    fake.answer(() => ({ status: 200, body: { ...WIRE, bot: { ...WIRE.bot, limits: { processes: -1 } } } }));
    expect((await transport.claim(new AbortController().signal))!.bot).not.toHaveProperty("limits");
  });

  it("tells the service, with the next heartbeat, how many never reached it", async () => {
    fake.answer(() => "drop");
    await expect(transport.heartbeat(ticket)).rejects.toBeInstanceOf(RunnerCallFailed);
    await expect(transport.heartbeat(ticket)).rejects.toBeInstanceOf(RunnerCallFailed);
    fake.answer(() => ({ status: 200, body: { held: true, cancel: true } }));
    expect(await transport.heartbeat(ticket)).toEqual({ held: true, cancel: true });
    expect(fake.calls.at(-1)).toMatchObject({ path: "runs/run_1/heartbeat", body: { claim_token: "att_1", missed_heartbeats: 2 } });
    // Told once: the next heartbeat carries none.
    await transport.heartbeat(ticket);
    expect(fake.calls.at(-1)!.body).toEqual({ claim_token: "att_1" });
    // An error answer reached the service: it is not a missed heartbeat.
    fake.answer(() => ({ status: 503, body: { error: "store_unavailable" } }));
    await expect(transport.heartbeat(ticket)).rejects.toMatchObject({ status: 503 });
    fake.answer(() => ({ status: 200, body: { held: true, cancel: false } }));
    await transport.heartbeat(ticket);
    expect(fake.calls.at(-1)!.body).toEqual({ claim_token: "att_1" });
  });

  it("sends output lines and the finish (outcome, the bot's usage objects) for the attempt", async () => {
    fake.answer(() => ({ status: 200, body: { held: true } }));
    await transport.output(ticket, [{ stream: "stderr", text: "warning\n" }]);
    expect(fake.calls.at(-1)).toMatchObject({ path: "runs/run_1/output", body: { claim_token: "att_1", lines: [{ stream: "stderr", text: "warning\n" }] } });
    fake.answer(() => ({ status: 200, body: { finished: true } }));
    const usage = {
      id: "u1",
      costMicro: 250_000,
      inputTokens: 10,
      outputTokens: 2,
      aggregateTokens: 0,
      fingerprint: "fp",
      provider: "example",
      tier: "team" as const,
      repo: null,
      amountType: "metered" as const,
    };
    const window = { provider: "anthropic", resetAt: Date.parse("2026-11-27T05:00:00Z") };
    expect(
      await transport.finish(ticket, {
        outcome: { status: "failed_resumable", failureCode: "USAGE_WINDOW", detail: "d", usageWindow: window },
        usage: [usage],
      }),
    ).toEqual({ finished: true });
    expect(fake.calls.at(-1)).toMatchObject({
      path: "runs/run_1/finish",
      body: {
        claim_token: "att_1",
        outcome: {
          status: "failed_resumable",
          failure_code: "USAGE_WINDOW",
          detail: "d",
          usage_window: { provider: "anthropic", reset_at: "2026-11-27T05:00:00.000Z" },
        },
        usage: [{ id: "u1", cost_usd: 0.25, input_tokens: 10, output_tokens: 2, fingerprint: "fp", provider: "example", tier: "team", amount_type: "metered" }],
      },
    });
  });

  it("hands the attempt the answer its ticket carries, and sends a question and a summary with the finish", async () => {
    fake.answer(() => ({ status: 200, body: { ...WIRE, answer: "next" } }));
    const answered = (await transport.claim(new AbortController().signal))!;
    expect(answered.input.answer).toBe("next");
    fake.answer(() => ({ status: 200, body: { finished: true } }));
    const question = { text: "Which branch?", choices: ["main", "next"] };
    await transport.finish(answered, {
      outcome: { status: "failed_resumable", failureCode: "QUESTION", detail: question.text, question, summary: "asked" },
      usage: [],
    });
    expect(fake.calls.at(-1)?.body.outcome).toEqual({
      status: "failed_resumable",
      failure_code: "QUESTION",
      detail: "Which branch?",
      question,
      summary: "asked",
    });
    await transport.finish(answered, { outcome: { status: "succeeded", summary: "done" }, usage: [] });
    expect(fake.calls.at(-1)?.body.outcome).toEqual({ status: "succeeded", summary: "done" });
  });

  it("reports a refused token as such, so the runner stops", async () => {
    fake.answer(() => ({ status: 401, body: { error: "unauthenticated" } }));
    await expect(transport.claim(new AbortController().signal)).rejects.toBeInstanceOf(RunnerTokenRefused);
    await expect(transport.finish(ticket, { outcome: { status: "succeeded" }, usage: [] })).rejects.toBeInstanceOf(RunnerTokenRefused);
  });
});
