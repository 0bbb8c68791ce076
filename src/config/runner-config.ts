import os from "node:os";
import path from "node:path";
import { ConfigError, runnerSandboxOf, type RunnerSandboxSettings } from "./config.js";
import { Reader } from "./env-reader.js";

/** What a runner on its own host reads: the service's URL and a runner token, nothing of the house. */
export interface RunnerConfig {
  url: string;
  token: string;
  /** This host's name in the runs it claims. */
  name: string;
  concurrency: number;
  /** Where bots' commands are resolved and run from. */
  botsDir: string;
  logLevel: string;
  /** How each attempt's bot is isolated and bounded (SERVICE_RUNNER_SANDBOX, SERVICE_RUNNER_USER, SERVICE_RUNNER_LIMIT_*). */
  sandbox: RunnerSandboxSettings;
  /** House variables found in the environment: ignored, and removed from it. */
  ignored: string[];
}

/** The service's own variables: a runner needs none, and a bot must never inherit one. */
export function houseVariables(env: Record<string, string | undefined>): string[] {
  return Object.keys(env)
    .filter(
      (name) =>
        ["SERVICE_DATABASE_URL", "SERVICE_SEAL_KEY", "SERVICE_SEAL_KEYS_RETIRED", "SERVICE_ADMIN_TOKEN"].includes(name) ||
        name.startsWith("SERVICE_PLATFORM_KEY_"),
    )
    .sort();
}

/** `SERVICE_RUNNER_URL`, `SERVICE_RUNNER_TOKEN` and the optional name, concurrency, bots folder and log level. */
export function loadRunnerConfig(env: Record<string, string | undefined>, cwd = process.cwd()): RunnerConfig {
  const problems: string[] = [];
  const url = env.SERVICE_RUNNER_URL ?? "";
  if (!/^https?:\/\/[^/]/.test(url)) problems.push("SERVICE_RUNNER_URL: the service's address, e.g. https://bots.example.com");
  const token = env.SERVICE_RUNNER_TOKEN ?? "";
  if (!/^rnr_[A-Za-z0-9_-]{20,}$/.test(token))
    problems.push("SERVICE_RUNNER_TOKEN: a runner token (rnr_…) minted at /api/admin/runners or /api/orgs/{id}/runners");
  const rawConcurrency = env.SERVICE_RUNNER_CONCURRENCY;
  const concurrency = rawConcurrency ? Number(rawConcurrency) : 4;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) problems.push("SERVICE_RUNNER_CONCURRENCY: a whole number from 1 to 256");
  const name = (env.SERVICE_RUNNER_NAME ?? os.hostname()).slice(0, 200);
  const sandbox = runnerSandboxOf(new Reader(env, problems), problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    url,
    token,
    name,
    concurrency,
    botsDir: path.resolve(cwd, env.SERVICE_RUNNER_BOTS_DIR || "bots"),
    logLevel: env.SERVICE_LOG_LEVEL || "info",
    sandbox,
    ignored: houseVariables(env),
  };
}
