import fs from "node:fs";
import { describe, expect, it } from "vitest";
import type { OutputChunk } from "./bot-output.js";
import type { BotCommand } from "./bot-commands.js";
import { runBotCommand } from "./run-bot-command.js";
import { chooseSandbox, Sandbox } from "./sandbox.js";

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

describe("runBotCommand's end", () => {
  it("ends when the bot exits, not when a process it detached (holding its stdout) lets go, and keeps what it printed last", async () => {
    // Without bubblewrap a process that left the group with setsid escapes the group kill; the attempt must end anyway.
    const script = [
      "const { spawn } = require('node:child_process')",
      "spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', 'detached-holder-' + process.env.BOT_RUN_ID], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] }).unref()",
      "console.log(JSON.stringify({ usage: { cost_usd: 0.5 } }))",
    ].join(";");
    const started = Date.now();
    const exit = await runBotCommand(botRunning(script), { ...input, runId: "run_detach" }, new AbortController().signal, Sandbox.none());
    expect(exit).toMatchObject({ kind: "exited", code: 0, usage: [expect.objectContaining({ costMicro: 500_000 })] });
    expect(Date.now() - started).toBeLessThan(15_000);
    for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
      try {
        if (fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("detached-holder-run_detach")) process.kill(Number(pid), "SIGKILL");
      } catch {
        // gone
      }
    }
  }, 30_000);

  it("stops the whole group on cancel, a child that ignores SIGTERM included", async () => {
    const script = [
      "const { spawn } = require('node:child_process')",
      "spawn(process.execPath, ['-e', \"process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)\", 'stubborn-' + process.env.BOT_RUN_ID], { stdio: 'inherit' })",
      "console.log('up')",
      "setInterval(() => {}, 1000)",
    ].join(";");
    const stop = new AbortController();
    const up = new Promise<void>((resolve) => {
      void runBotCommand(botRunning(script), { ...input, runId: "run_stubborn" }, stop.signal, Sandbox.none(), {}, (c) => {
        if (c.text === "up\n") resolve();
      }).then((exit) => ended(exit));
    });
    let ended!: (exit: unknown) => void;
    const done = new Promise((resolve) => (ended = resolve));
    await up;
    stop.abort();
    expect(await done).toMatchObject({ kind: "aborted" });
    const left = fs
      .readdirSync("/proc")
      .filter((p) => /^\d+$/.test(p))
      .filter((pid) => {
        try {
          return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("stubborn-run_stubborn");
        } catch {
          return false;
        }
      });
    expect(left).toEqual([]);
  }, 30_000);
});

describe.skipIf(!sandbox.limits)("runBotCommand under resource limits", () => {
  const shell = (script: string, limits: BotCommand["limits"]): BotCommand => ({ ...botRunning(""), command: ["sh", "-c", script], limits });

  it("runs the bot with its limits set, soft and hard", async () => {
    const seen: OutputChunk[] = [];
    const script = "grep -E '^Max (data size|processes|file size|open files|cpu time|core file size) ' /proc/self/limits";
    const exit = await runBotCommand(
      shell(script, { memoryMib: 512, processes: 200, fileSizeMib: 3, openFiles: 300, cpuSeconds: 40 }),
      input,
      new AbortController().signal,
      sandbox,
      {},
      (c) => seen.push(c),
    );
    expect(exit).toMatchObject({ kind: "exited", code: 0 });
    const rows = Object.fromEntries(seen.map((c) => /^Max ([a-z ]+?)\s{2,}(\S+)\s+(\S+)/.exec(c.text)!).map((m) => [m[1], [m[2], m[3]]]));
    expect(rows).toEqual({
      "cpu time": ["40", "45"],
      "file size": [String(3 * 2 ** 20), String(3 * 2 ** 20)],
      "data size": [String(512 * 2 ** 20), String(512 * 2 ** 20)],
      "core file size": ["0", "0"],
      "open files": ["300", "300"],
      ...(sandbox.limits?.processes !== "off" && { processes: ["200", "200"] }),
    });
  });

  it("fails a bot killed by its file size limit with the limit named, and keeps the file at the limit", async () => {
    const seen: OutputChunk[] = [];
    const script = "head -c 5000000 /dev/zero > big.bin; s=$?; echo size $(wc -c < big.bin); exit $s";
    const exit = await runBotCommand(shell(script, { fileSizeMib: 1 }), input, new AbortController().signal, sandbox, {}, (c) => seen.push(c));
    expect(exit).toMatchObject({ kind: "exited", code: 153, limitHit: "killed: file size limit 1 MiB (SIGXFSZ, exit code 153)" });
    expect(seen.map((c) => c.text)).toContain(`size ${2 ** 20}\n`);
  });
});
