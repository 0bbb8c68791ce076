import type { ResourceLimits } from "../../config/resource-limits.js";

/** The limits set on one attempt's processes (soft = hard, so a bot cannot raise them); absent: none. */
export interface AppliedLimits {
  memoryBytes?: number;
  processes?: number;
  fileSizeBytes?: number;
  openFiles?: number;
  cpuSeconds?: number;
}

/**
 * Whose processes RLIMIT_NPROC counts for an attempt: `attempt` where each attempt has a user
 * namespace of its own (bubblewrap, Linux 5.14 and later), `user` where it counts every process of
 * SERVICE_RUNNER_USER on the host, `off` where it would count the runner's own user (not applied).
 */
export type ProcessCount = "attempt" | "user" | "off";

/** The runner's own hard limits, which no child can exceed (read from /proc/self/limits); absent: unlimited. */
export type Ceilings = Partial<Record<"data" | "nproc" | "fsize" | "nofile" | "cpu", number>>;

/** How a runner bounds its attempts: prlimit (util-linux) runs each bot under the limits. */
export interface LimitPlan {
  /** The prlimit executable. */
  prlimit: string;
  defaults: ResourceLimits;
  ceilings: Ceilings;
  processes: ProcessCount;
}

const MIB = 1024 * 1024;
/** Past its CPU limit a process gets SIGXCPU; this many CPU seconds later, SIGKILL. */
const CPU_KILL_AFTER = 5;

/** One attempt's limits: the bot's own over the runner's defaults, within the runner's hard limits. */
export function attemptLimits(plan: LimitPlan, bot: Partial<ResourceLimits> | undefined, timeoutMs: number): AppliedLimits {
  const pick = <K extends keyof ResourceLimits>(k: K) => (bot && k in bot ? bot[k] : plan.defaults[k]);
  const cpu = pick("cpuSeconds");
  // No limit set: the runner's own, inherited.
  const within = (v: number | null | undefined, ceiling: number | undefined) => (v == null ? undefined : ceiling === undefined ? v : Math.min(v, ceiling));
  const mib = (v: number | null | undefined) => (v == null ? v : v * MIB);
  const applied: AppliedLimits = {
    memoryBytes: within(mib(pick("memoryMib")), plan.ceilings.data),
    processes: plan.processes === "off" ? undefined : within(pick("processes"), plan.ceilings.nproc),
    fileSizeBytes: within(mib(pick("fileSizeMib")), plan.ceilings.fsize),
    openFiles: within(pick("openFiles"), plan.ceilings.nofile),
    // Unset: twice the timeout, so a process that keeps one core busy all along is never stopped by it.
    cpuSeconds: within(cpu === undefined ? Math.ceil((2 * timeoutMs) / 1000) : cpu, plan.ceilings.cpu),
  };
  for (const k of Object.keys(applied) as (keyof AppliedLimits)[]) if (applied[k] === undefined) delete applied[k];
  return applied;
}

/** prlimit's options for these limits: soft = hard, no core dumps (a crashing bot writes none, here or to the host's collector). */
export function prlimitArgs(l: AppliedLimits): string[] {
  const both = (v: number) => `${v}:${v}`;
  return [
    "--core=0:0",
    ...(l.memoryBytes !== undefined ? [`--data=${both(l.memoryBytes)}`] : []),
    ...(l.processes !== undefined ? [`--nproc=${both(l.processes)}`] : []),
    ...(l.fileSizeBytes !== undefined ? [`--fsize=${both(l.fileSizeBytes)}`] : []),
    ...(l.openFiles !== undefined ? [`--nofile=${both(l.openFiles)}`] : []),
    ...(l.cpuSeconds !== undefined ? [`--cpu=${l.cpuSeconds}:${l.cpuSeconds + CPU_KILL_AFTER}`] : []),
  ];
}

/** The hard limits in /proc/<pid>/limits text. */
export function parseCeilings(text: string): Ceilings {
  const rows: [keyof Ceilings, string][] = [
    ["cpu", "Max cpu time"],
    ["fsize", "Max file size"],
    ["data", "Max data size"],
    ["nproc", "Max processes"],
    ["nofile", "Max open files"],
  ];
  const out: Ceilings = {};
  for (const [key, label] of rows) {
    const line = text.split("\n").find((l) => l.startsWith(label));
    const hard = line?.slice(label.length).trim().split(/\s+/)[1];
    if (hard && /^\d+$/.test(hard)) out[key] = Number(hard);
  }
  return out;
}

/** Whether RLIMIT_NPROC counts per user namespace (ucounts, Linux 5.14). */
export function countsPerNamespace(kernelRelease: string): boolean {
  const [major = 0, minor = 0] = kernelRelease.split(/[.-]/).map(Number);
  return major > 5 || (major === 5 && minor >= 14);
}

/** `2 GiB`, `1536 MiB`. */
export function formatBytes(bytes: number): string {
  const mib = bytes / MIB;
  if (mib >= 1024 && mib % 1024 === 0) return `${mib / 1024} GiB`;
  if (Number.isInteger(mib)) return `${mib} MiB`;
  return `${bytes} bytes`;
}

/** Each limit as a phrase, for the start log and a failure's detail. */
export function limitPhrases(l: AppliedLimits): Record<keyof AppliedLimits, string | undefined> {
  return {
    memoryBytes: l.memoryBytes === undefined ? undefined : `memory limit ${formatBytes(l.memoryBytes)} per process`,
    processes: l.processes === undefined ? undefined : `process limit ${l.processes}`,
    fileSizeBytes: l.fileSizeBytes === undefined ? undefined : `file size limit ${formatBytes(l.fileSizeBytes)}`,
    openFiles: l.openFiles === undefined ? undefined : `open files limit ${l.openFiles} per process`,
    cpuSeconds: l.cpuSeconds === undefined ? undefined : `CPU time limit ${l.cpuSeconds} s per process`,
  };
}
