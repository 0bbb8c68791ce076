import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenancy, startTestApp, storeKinds, type Seed, type TestApp } from "../../test-support/harness.js";
import { BotCommands } from "./bot-commands.js";
import { inProcessRunner } from "../../test-support/runners.js";

describe.each(storeKinds())("the runner keeps a bot's output on %s", (kind) => {
  let t: TestApp;
  let s: Seed;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    s = await seedTenancy(t);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "bots-"));
    const script = [
      'console.log("cloning the repository");',
      'console.error("warning: shallow clone");',
      'console.log(JSON.stringify({ summary: "looked at it" }));',
      'console.log("done");',
    ].join("");
    // Asks on its first attempt; on the next one prints the answer it was handed (environment and stdin).
    const asks = [
      'let input = ""; process.stdin.on("data", (d) => (input += d)); process.stdin.on("end", () => {',
      "  if (!process.env.BOT_ANSWER) {",
      '    console.log(JSON.stringify({ question: { text: "Which branch?", choices: ["main", "next"] } }));',
      "    process.exit(75);",
      "  }",
      '  console.log("env " + process.env.BOT_ANSWER + ", stdin " + JSON.parse(input).answer);',
      '  console.log(JSON.stringify({ summary: "merged into " + process.env.BOT_ANSWER }));',
      "});",
    ].join("\n");
    fs.writeFileSync(
      path.join(dir, "bots.json"),
      JSON.stringify({ "review-pr": { command: ["node", "-e", script] }, converse: { command: ["node", "-e", asks] } }),
    );
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const runner = () => inProcessRunner(t.services, new BotCommands(path.join(dir, "bots.json")), { concurrency: 1 });

  it("stops a run on its bot's question until a member answers; the next attempt is handed the answer", async () => {
    const id = (await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "converse" })).body.id;
    const r = runner();
    expect(await r.tick()).toBe(1);
    await r.idle();
    const waiting = (await s.member.api.get(`/api/runs/${id}`)).body;
    expect(waiting).toMatchObject({
      status: "failed_resumable",
      failure_code: "QUESTION",
      failure_detail: "Which branch?",
      question: { text: "Which branch?", choices: ["main", "next"] },
      waiting_for_answer: true,
      answer: null,
    });
    expect((await s.member.api.post(`/api/runs/${id}/answer`, { answer: "develop" })).body).toMatchObject({ error: "invalid_request", field: "answer" });
    expect((await s.outsider.api.post(`/api/runs/${id}/answer`, { answer: "next" })).status).toBe(404);
    const answered = await s.member.api.post(`/api/runs/${id}/answer`, { answer: "next" });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: "queued", attempt: 2, answer: "next", waiting_for_answer: false });
    const again = await s.member.api.post(`/api/runs/${id}/answer`, { answer: "main" });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: "conflict", detail: "the run is not waiting for an answer" });

    expect(await r.tick()).toBe(1);
    await r.idle();
    const done = (await s.member.api.get(`/api/runs/${id}`)).body;
    expect(done).toMatchObject({ status: "succeeded", attempt: 2, summary: "merged into next", answer: null, waiting_for_answer: false });
    expect((await s.member.api.call("GET", `/api/runs/${id}/attempts/2/log`)).body).toBe("env next, stdin next\n");
    expect((await s.member.api.post(`/api/runs/${id}/answer`, { answer: "main" })).status).toBe(409);
  });

  it("sends stdout and stderr lines (not protocol lines) to the output store before the attempt ends", async () => {
    const launched = await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr" });
    const r = runner();
    expect(await r.tick()).toBe(1);
    await r.idle();
    const log = await s.member.api.call("GET", `/api/runs/${launched.body.id}/attempts/1/log`);
    expect(log.headers["x-log-complete"]).toBe("true");
    const lines = String(log.body).split("\n").filter(Boolean).sort();
    expect(lines).toEqual(["cloning the repository", "done", "warning: shallow clone"]);
  });
});
