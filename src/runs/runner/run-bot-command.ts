import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import type { BotCommand } from "./bot-commands.js";
import { limitHit } from "./limit-hit.js";
import { MAX_LINE, parseQuestionLine, parseSummaryLine, type BotQuestion, type OutputSink } from "./bot-output.js";
import { secretMask } from "./mask-secrets.js";
import { descendantsOf, signal as signalProcess } from "./process-tree.js";
import { sandboxCommand, type Sandbox, type SandboxedCommand } from "./sandbox.js";
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
  | {
      kind: "exited";
      /** The exit code; 128 + the signal's number when a signal ended it (as bwrap and the shells report). */
      code: number;
      usage: BotUsageLine[];
      stderrTail: string;
      /** A failure that a resource limit most likely caused, said plainly (limit-hit.ts). */
      limitHit?: string;
    }
  | { kind: "timed_out"; usage: BotUsageLine[]; stderrTail: string }
  | { kind: "aborted"; usage: BotUsageLine[]; stderrTail: string }
  | { kind: "spawn_failed"; message: string; usage: BotUsageLine[]; stderrTail: string }
) & { usageWindow?: UsageWindow; summary?: string; question?: BotQuestion };

const STDERR_TAIL = 2000;
/** A bot asking to be resumed (runner.ts's EXIT_RESUMABLE): its own choice, never put down to a limit. */
const EXIT_TEMPFAIL = 75;
/** After SIGTERM an attempt's processes get this long to exit before SIGKILL. */
export const KILL_GRACE_MS = 5000;
/**
 * Once the bot's process has exited, its output pipes are read until they stay quiet this long;
 * a process that escaped the group and still holds them is not waited for. Under bubblewrap
 * nothing can outlive the sandbox, so the pipes close on their own and this is only a backstop.
 */
const DRAIN_QUIET_MS = 2000;
const DRAIN_QUIET_BWRAP_MS = 10_000;

/**
 * Runs one bot command to its end, in the runner's sandbox (sandbox.ts): a fresh working
 * directory of its own, a process group of its own (and with bubblewrap a PID namespace), ended
 * whole on cancel, timeout and stop. The child gets a clean environment (PATH, HOME, LANG and
 * the run's facts): the service's own variables hold secrets a bot must not see. `credentials`
 * (its keys and secrets) win over the bots file's env, and their values are masked in what
 * the bot's exit carries back (stderr, a spawn error), so no log or run view repeats them.
 */
export function runBotCommand(
  bot: BotCommand,
  input: BotInput,
  signal: AbortSignal,
  sandbox: Sandbox,
  credentials: Record<string, string> = {},
  onOutput: OutputSink = () => undefined,
): Promise<BotExit> {
  const { file, args } = resolveCommand(bot);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
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
    let exitCode: number | undefined;
    let child: ChildProcessWithoutNullStreams;
    let cmd: SandboxedCommand | undefined;
    const limits = sandbox.limitsFor(bot);
    try {
      if (!findExecutable(file, env.PATH!)) throw Object.assign(new Error(`spawn ${file} ENOENT`), { code: "ENOENT" });
      cmd = sandboxCommand(sandbox, file, args, env, path.resolve(bot.cwd), limits);
      child = spawn(cmd.file, cmd.args, { ...cmd.options, stdio: ["pipe", "pipe", "pipe"] }) as ChildProcessWithoutNullStreams;
    } catch (err) {
      // A missing executable, or bad arguments or environment (a NUL, say): no child exists.
      const message = hide.mask(err instanceof Error ? err.message : String(err));
      void (cmd?.cleanup() ?? Promise.resolve()).then(() => resolve({ kind: "spawn_failed", message, usage: [], stderrTail: "" }));
      return;
    }
    const attempt = cmd;
    const pgid = child.pid;

    // Every process of the attempt: its group, and what descends from the bot (a process that
    // left the group with setsid still descends from it while its parent lives). With
    // bubblewrap the first two levels are bwrap and its PID namespace's init: the SIGTERM goes
    // to the bot's processes inside, and a SIGKILL of bwrap ends the whole namespace.
    const seen = new Set<number>();
    /** Sends SIGTERM to the attempt's processes; returns how many (bwrap may not have started the bot yet). */
    const term = (): number => (pgid === undefined ? 0 : termProcesses(pgid, sandbox.usesBwrap, seen));
    const killAll = () => {
      if (pgid === undefined) return;
      const rest = descendantsOf(pgid).map((d) => d.pid);
      signalProcess(-pgid, "SIGKILL");
      for (const pid of new Set([...seen, ...rest])) signalProcess(pid, "SIGKILL");
    };
    let hardKill: NodeJS.Timeout | undefined;
    let retryTerm: NodeJS.Timeout | undefined;
    const kill = (why: "timed_out" | "aborted") => {
      if (ending || exitCode !== undefined) return;
      ending = why;
      if (term() === 0) {
        retryTerm = setInterval(() => {
          if (exitCode !== undefined || term() > 0) clearInterval(retryTerm);
        }, 100);
      }
      hardKill = setTimeout(() => {
        clearInterval(retryTerm);
        killAll();
      }, KILL_GRACE_MS);
    };
    const timer = setTimeout(() => kill("timed_out"), bot.timeoutMs);
    const onAbort = () => kill("aborted");
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });

    createInterface({ input: child.stdout }).on("line", (line) => {
      const said = protocolLine(line);
      if (said.usage) usage.push(said.usage);
      usageWindow = said.window ?? usageWindow;
      summary = said.summary ?? summary;
      question = said.question ?? question;
      if (said.any) return;
      for (const text of stdoutPieces(line, (piece) => hide.mask(piece))) onOutput({ stream: "stdout", text });
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
    let drain: NodeJS.Timeout | undefined;
    const settle = (exit: BotExit) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(hardKill);
      clearInterval(retryTerm);
      clearTimeout(drain);
      signal.removeEventListener("abort", onAbort);
      passStderr(true);
      const shown = { ...exit, stderrTail: hide.tail(exit.stderrTail, cut, STDERR_TAIL), ...("message" in exit && { message: hide.mask(exit.message) }) };
      const result = { ...shown, ...(usageWindow && { usageWindow }), ...(summary && { summary }), ...(question && { question }) };
      void attempt.cleanup().then(() => resolve(result));
    };
    const ended = () => {
      if (ending) return settle({ kind: ending, usage, stderrTail: stderr });
      // bwrap reports a command it could not execute on stderr, with exit code 1; so does prlimit limits it could not set.
      const refused =
        exitCode === 1 && ((sandbox.usesBwrap && /^bwrap: /.test(stderr)) || (limits && /^prlimit: /.test(stderr))) ? stderr.trim().split("\n")[0] : undefined;
      if (refused) return settle({ kind: "spawn_failed", message: refused, usage, stderrTail: stderr });
      const code = exitCode ?? 1;
      const hit = limits && code !== 0 && code !== EXIT_TEMPFAIL ? limitHit(code, hide.mask(stderr), limits) : undefined;
      settle({ kind: "exited", code, usage, stderrTail: stderr, ...(hit && { limitHit: hit }) });
    };
    // No pid: the child never started (missing executable or cwd, no permission); a later error (a failed kill) waits for close.
    child.on("error", (err) => {
      if (child.pid === undefined) settle({ kind: "spawn_failed", message: err.message, usage, stderrTail: stderr });
    });
    // The attempt ends when its bot does: what it left behind is killed, and its pipes get a
    // moment to drain but are not waited for (a process that escaped the group may hold them).
    const quiet = sandbox.usesBwrap ? DRAIN_QUIET_BWRAP_MS : DRAIN_QUIET_MS;
    const armDrain = () => {
      clearTimeout(drain);
      // setImmediate: output that arrived while the loop was busy is read (poll phase) before the pipes are closed.
      drain = setTimeout(
        () =>
          setImmediate(() => {
            if (settled) return;
            child.stdout.destroy();
            child.stderr.destroy();
            ended();
          }),
        quiet,
      );
    };
    child.on("exit", (code, sig) => {
      exitCode = code ?? 128 + (sig ? (os.constants.signals[sig] ?? 0) : 0);
      killAll();
      armDrain();
      const again = () => {
        if (!settled) armDrain();
      };
      child.stdout.on("data", again);
      child.stderr.on("data", again);
    });
    child.on("close", () => ended());
  });
}

/** A first word `node` is the service's Node; a relative path in the command names a file of the bots file's folder. */
function resolveCommand(bot: BotCommand): { file: string; args: string[] } {
  const [first, ...rest] = bot.command;
  const file = first === "node" ? process.execPath : first!.includes("/") ? path.resolve(bot.cwd, first!) : first!;
  const args = rest.map((a) => (!path.isAbsolute(a) && !a.startsWith("-") && isFile(path.resolve(bot.cwd, a)) ? path.resolve(bot.cwd, a) : a));
  return { file, args };
}

function findExecutable(file: string, searchPath: string): boolean {
  if (file.includes("/")) return isFile(file);
  return searchPath.split(":").some((dir) => dir !== "" && isFile(path.join(dir, file)));
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** SIGTERM to the attempt's processes (with bubblewrap, only those inside its namespace), each pid remembered in `seen`; how many were signalled. */
function termProcesses(pgid: number, usesBwrap: boolean, seen: Set<number>): number {
  let sent = 0;
  if (!usesBwrap) sent += signalProcess(-pgid, "SIGTERM") ? 1 : 0;
  for (const d of descendantsOf(pgid)) {
    seen.add(d.pid);
    if ((!usesBwrap || d.depth >= 2) && signalProcess(d.pid, "SIGTERM")) sent++;
  }
  return sent;
}

/** What a stdout line tells the runner: a usage report, a usage-window notice, a summary or a question (the first that parses); `any` is false for the bot's own output. */
function protocolLine(line: string) {
  const usage = parseUsageLine(line);
  const window = usage ? undefined : parseUsageWindowLine(line);
  const summary = usage || window ? undefined : parseSummaryLine(line);
  const question = usage || window || summary ? undefined : parseQuestionLine(line);
  return { usage, window, summary, question, any: Boolean(usage || window || summary || question) };
}

/** A stdout line as output pieces of at most MAX_LINE characters, each masked, the last one ending the line. */
function stdoutPieces(line: string, mask: (piece: string) => string): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < Math.max(line.length, 1); at += MAX_LINE) {
    pieces.push(`${mask(line.slice(at, at + MAX_LINE))}${at + MAX_LINE >= line.length ? "\n" : ""}`);
  }
  return pieces;
}
