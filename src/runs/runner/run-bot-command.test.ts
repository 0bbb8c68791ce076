import { describe, expect, it } from "vitest";
import type { OutputChunk } from "./bot-output.js";
import type { BotCommand } from "./bot-commands.js";
import { runBotCommand } from "./run-bot-command.js";
import { chooseSandbox } from "./sandbox.js";

const input = { runId: "run_1", botId: "b", attempt: 1, vars: {}, repoUrl: null, repoRef: null, projectPath: null };
/** The machine's own sandbox, as the service would choose it. */
const sandbox = chooseSandbox({ mode: "auto", user: "nobody" }, []);
const botRunning = (script: string): BotCommand => ({
  id: "b",
  command: ["node", "-e", script],
  timeoutMs: 30_000,
  env: {},
  providers: [],
  cwd: process.cwd(),
});

describe("runBotCommand's output", () => {
  it("passes the bot's own lines on, masked, and keeps protocol lines out of them", async () => {
    const seen: OutputChunk[] = [];
    const script = [
      "console.log('hello ' + process.env.BOT_KEY)",
      "console.log(JSON.stringify({ usage: { cost_usd: 0.5 } }))",
      "console.log(JSON.stringify({ summary: 'reviewed   3 files' }))",
      "process.stderr.write('warn one\\nwarn tw')",
      "process.stderr.write('o ' + process.env.BOT_KEY)",
    ].join(";");
    const exit = await runBotCommand(botRunning(script), input, new AbortController().signal, sandbox, { BOT_KEY: "sk-secret-value" }, (c) => seen.push(c));
    expect(exit.kind).toBe("exited");
    expect(exit.usage).toHaveLength(1);
    expect(exit.summary).toBe("reviewed 3 files");
    expect(seen.filter((c) => c.stream === "stdout").map((c) => c.text)).toEqual(["hello [redacted]\n"]);
    expect(seen.filter((c) => c.stream === "stderr").map((c) => c.text)).toEqual(["warn one\n", "warn two [redacted]"]);
  });

  it("carries the question a bot stopped to ask", async () => {
    const script = "console.log(JSON.stringify({ question: { text: 'Which branch?', choices: ['main', 'dev', 3] } })); process.exit(75)";
    const exit = await runBotCommand(botRunning(script), input, new AbortController().signal, sandbox);
    expect(exit).toMatchObject({ kind: "exited", code: 75, question: { text: "Which branch?", choices: ["main", "dev"] } });
  });

  it("passes a line longer than the piece size on in pieces, the newline on the last", async () => {
    const seen: OutputChunk[] = [];
    await runBotCommand(botRunning("console.log('x'.repeat(40000))"), input, new AbortController().signal, sandbox, {}, (c) => seen.push(c));
    expect(seen.map((c) => c.text.length)).toEqual([16384, 16384, 40000 - 32768 + 1]);
  });
});
