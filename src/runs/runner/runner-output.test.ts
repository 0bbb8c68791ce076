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
    fs.writeFileSync(path.join(dir, "bots.json"), JSON.stringify({ "review-pr": { command: ["node", "-e", script] } }));
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("sends stdout and stderr lines (not protocol lines) to the output store before the attempt ends", async () => {
    const launched = await s.member.api.post("/api/runs", { team_id: s.team.id, bot: "review-pr" });
    const runner = inProcessRunner(t.services, new BotCommands(path.join(dir, "bots.json")), { concurrency: 1 });
    expect(await runner.tick()).toBe(1);
    await runner.idle();
    const log = await s.member.api.call("GET", `/api/runs/${launched.body.id}/attempts/1/log`);
    expect(log.headers["x-log-complete"]).toBe("true");
    const lines = String(log.body).split("\n").filter(Boolean).sort();
    expect(lines).toEqual(["cloning the repository", "done", "warning: shallow clone"]);
  });
});
