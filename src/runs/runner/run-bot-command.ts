import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import type { BotCommand } from "./bot-commands.js";
import { MAX_LINE, parseQuestionLine, parseSummaryLine, type BotQuestion, type OutputSink } from "./bot-output.js";
import { secretMask } from "./mask-secrets.js";
import { parseUsageLine, parseUsageWindowLine, type BotUsageLine, type UsageWindow } from "./usage-line.js";

/** What the bot is handed: environment variables and the same facts as JSON on stdin. */
export interface BotInput {
  runId: string;
  botId: string;
  attempt: number;
  vars: Record<string, string>;
  repoUrl: string | null;
  repoRef: string | null;
  projectPath: string | null;
  /** A person's answer to the question the previous attempt asked, if one was given. */
  answer?: string | null;
}

/**
 * How the bot ended, with what it reported: usage lines, the usage window it found exhausted,
 * its last summary line and the question it stopped to ask, if any.
 */
export type BotExit = (
  | { kind: "exited"; code: number; usage: BotUsageLine[]; stderrTail: string }
  | { kind: "timed_out"; usage: BotUsageLine[]; stderrTail: string }
  | { kind: "aborted"; usage: BotUsageLine[]; stderrTail: string }
  | { kind: "spawn_failed"; message: string; usage: BotUsageLine[]; stderrTail: string }
) & { usageWindow?: UsageWindow; summary?: string; question?: BotQuestion };

const STDERR_TAIL = 2000;
/** After SIGTERM a bot gets this long to exit before SIGKILL. */
const KILL_GRACE_MS = 5000;

/**
 * Runs one bot command to its end. The child gets a clean environment (PATH, HOME, LANG and
 * the run's facts): the service's own variables hold secrets a bot must not see. `credentials`
 * (its keys and secrets) win over the bots file's env, and their values are masked in what
 * the bot's exit carries back (stderr, a spawn error), so no log or run view repeats them.
 */
export function runBotCommand(
  bot: BotCommand,
  input: BotInput,
  signal: AbortSignal,
  credentials: Record<string, string> = {},
  onOutput: OutputSink = () => undefined,
): Promise<BotExit> {
  const [first, ...args] = bot.command;
  const file = first === "node" ? process.execPath : first!;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? bot.cwd,
    LANG: process.env.LANG ?? "C.UTF-8",
    BOT_RUN_ID: input.runId,
    BOT_ID: input.botId,
    BOT_ATTEMPT: String(input.attempt),
    BOT_REPO_URL: input.repoUrl ?? "",
    BOT_REPO_REF: input.repoRef ?? "",
    BOT_PROJECT_PATH: input.projectPath ?? "",
    ...bot.env,
    ...(input.answer != null && { BOT_ANSWER: input.answer }),
  };
  for (const [k, v] of Object.entries(input.vars)) env[`BOT_VAR_${k}`] = v;
  Object.assign(env, credentials);
  const hide = secretMask(Object.values(credentials));
  const keep = STDERR_TAIL + 2 * hide.margin;

  return new Promise((resolve) => {
    const usage: BotUsageLine[] = [];
    let usageWindow: UsageWindow | undefined;
    let summary: string | undefined;
    let question: BotQuestion | undefined;
    let stderr = "";
    let cut = false;
    let ending: "timed_out" | "aborted" | undefined;
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(file, args, { cwd: path.resolve(bot.cwd), env, stdio: ["pipe", "pipe", "pipe"] });
    } catch (err) {
      // Bad arguments or environment (a NUL, say) throw here, before any child exists.
      resolve({ kind: "spawn_failed", message: hide.mask(err instanceof Error ? err.message : String(err)), usage: [], stderrTail: "" });
      return;
    }

    const kill = (why: "timed_out" | "aborted") => {
      if (ending || child.exitCode !== null) return;
      ending = why;
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS).unref();
    };
    const timer = setTimeout(() => kill("timed_out"), bot.timeoutMs);
    const onAbort = () => kill("aborted");
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });

    createInterface({ input: child.stdout }).on("line", (line) => {
      const parsed = parseUsageLine(line);
      const window = parsed ? undefined : parseUsageWindowLine(line);
      const said = parsed || window ? undefined : parseSummaryLine(line);
      const asked = parsed || window || said ? undefined : parseQuestionLine(line);
      if (parsed) usage.push(parsed);
      usageWindow = window ?? usageWindow;
      summary = said ?? summary;
      question = asked ?? question;
      if (parsed || window || said || asked) return;
      for (let at = 0; at < Math.max(line.length, 1); at += MAX_LINE) {
        const piece = line.slice(at, at + MAX_LINE);
        onOutput({ stream: "stdout", text: `${hide.mask(piece)}${at + MAX_LINE >= line.length ? "\n" : ""}` });
      }
    });
    let partial = "";
    const passStderr = (flush: boolean) => {
      let nl = partial.indexOf("\n");
      while (nl >= 0 || partial.length >= MAX_LINE || (flush && partial.length > 0)) {
        const end = nl >= 0 && nl < MAX_LINE ? nl + 1 : Math.min(partial.length, MAX_LINE);
        onOutput({ stream: "stderr", text: hide.mask(partial.slice(0, end)) });
        partial = partial.slice(end);
        nl = partial.indexOf("\n");
      }
    };
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text: string) => {
      const all = stderr + text;
      cut ||= all.length > keep;
      stderr = all.slice(-keep);
      partial += text;
      passStderr(false);
    });
    // A bot that never reads stdin closes it early; that is not an error of the run.
    child.stdin.on("error", () => undefined);
    child.stdin.end(
      JSON.stringify({
        run_id: input.runId,
        bot: input.botId,
        attempt: input.attempt,
        vars: input.vars,
        repo_url: input.repoUrl,
        repo_ref: input.repoRef,
        project_path: input.projectPath,
        answer: input.answer ?? null,
      }),
    );

    let settled = false;
    const settle = (exit: BotExit) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      passStderr(true);
      const shown = { ...exit, stderrTail: hide.tail(exit.stderrTail, cut, STDERR_TAIL), ...("message" in exit && { message: hide.mask(exit.message) }) };
      resolve({ ...shown, ...(usageWindow && { usageWindow }), ...(summary && { summary }), ...(question && { question }) });
    };
    // No pid: the child never started (missing executable or cwd, no permission); a later error (a failed kill) waits for close.
    child.on("error", (err) => {
      if (child.pid === undefined) settle({ kind: "spawn_failed", message: err.message, usage, stderrTail: stderr });
    });
    child.on("close", (code) => {
      if (ending) settle({ kind: ending, usage, stderrTail: stderr });
      else settle({ kind: "exited", code: code ?? 1, usage, stderrTail: stderr });
    });
  });
}
