import type { Reader } from "./env-reader.js";

/**
 * Kernel resource limits (setrlimit) on each process of an attempt: docs/security-model.md,
 * "Resource limits". null: no limit. The bots file's `limits` override them per bot.
 */
export interface ResourceLimits {
  /** Writable memory a process may map (RLIMIT_DATA), MiB. Not RLIMIT_AS: V8 reserves ~10 GiB of address space per WebAssembly instance. */
  memoryMib: number | null;
  /** Processes and threads (RLIMIT_NPROC): per attempt under bubblewrap, per SERVICE_RUNNER_USER without it. */
  processes: number | null;
  /** The largest file a process may write (RLIMIT_FSIZE), MiB. */
  fileSizeMib: number | null;
  /** Open files per process (RLIMIT_NOFILE). */
  openFiles: number | null;
  /** CPU seconds per process (RLIMIT_CPU); undefined: twice the bot's timeout. */
  cpuSeconds?: number | null;
}

/** Room for a git clone and an LLM command-line tool in Node; a bot that needs more says so in the bots file. */
export const DEFAULT_RESOURCE_LIMITS: ResourceLimits = { memoryMib: 4096, processes: 1024, fileSizeMib: 2048, openFiles: 4096 };

/** The bots file's names of the limits (`limits.memory_mib` …) and the SERVICE_RUNNER_LIMIT_* variable of each. */
export const LIMIT_FIELDS = [
  { key: "memoryMib", file: "memory_mib", env: "SERVICE_RUNNER_LIMIT_MEMORY_MIB" },
  { key: "processes", file: "processes", env: "SERVICE_RUNNER_LIMIT_PROCESSES" },
  { key: "fileSizeMib", file: "file_size_mib", env: "SERVICE_RUNNER_LIMIT_FILE_SIZE_MIB" },
  { key: "openFiles", file: "open_files", env: "SERVICE_RUNNER_LIMIT_OPEN_FILES" },
  { key: "cpuSeconds", file: "cpu_seconds", env: "SERVICE_RUNNER_LIMIT_CPU_SECONDS" },
] as const satisfies readonly { key: keyof ResourceLimits; file: string; env: string }[];

/** A limit's value as written: a whole number, 0 for none. */
export const MAX_LIMIT = 2 ** 40;

/** SERVICE_RUNNER_LIMIT_*: each a whole number (0: no limit); unset keeps the default. */
export function resourceLimitsOf(read: Reader, problems: string[]): ResourceLimits {
  const limits: ResourceLimits = { ...DEFAULT_RESOURCE_LIMITS };
  for (const f of LIMIT_FIELDS) {
    const raw = read.string(f.env, "");
    if (raw === "") continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > MAX_LIMIT) problems.push(`${f.env}: must be a whole number (0: no limit), got ${JSON.stringify(raw)}`);
    else limits[f.key] = n === 0 ? null : n;
  }
  return limits;
}
