/**
 * Runner processes for the resilience suite: `node dist/runner-main.js` children with a URL, a
 * runner token and a bots folder, tracked so that nothing outlives the test file.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { ROOT } from "./proc.js";

export interface RunnerProcess {
  readonly proc: ChildProcess;
  output(): string;
  /** The exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  kill9(): Promise<void>;
}

const live = new Set<ChildProcess>();

/** Starts a runner with exactly this environment: the service's URL, a runner token and where its bots are. */
export function startRunnerProcess(o: { url: string; token: string; botsDir: string; env?: Record<string, string> }): RunnerProcess {
  const env = { SERVICE_RUNNER_URL: o.url, SERVICE_RUNNER_TOKEN: o.token, SERVICE_RUNNER_BOTS_DIR: o.botsDir, ...o.env };
  const proc = spawn(process.execPath, [path.join(ROOT, "dist/runner-main.js")], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  live.add(proc);
  let out = "";
  const keep = (chunk: Buffer) => {
    out += chunk.toString("utf8");
    if (out.length > 65536) out = out.slice(-65536);
  };
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  const exited = new Promise<number | null>((resolve) =>
    proc.once("exit", (code) => {
      live.delete(proc);
      resolve(code);
    }),
  );
  return {
    proc,
    output: () => out,
    exited,
    kill9: async () => {
      proc.kill("SIGKILL");
      await exited;
    },
  };
}

export async function cleanupRunners(): Promise<void> {
  await Promise.all(
    [...live].map(
      (p) =>
        new Promise<void>((resolve) => {
          if (p.exitCode !== null || p.signalCode !== null) return resolve();
          p.once("exit", () => resolve());
          p.kill("SIGKILL");
        }),
    ),
  );
}

process.once("exit", () => {
  for (const p of live) p.kill("SIGKILL");
});
