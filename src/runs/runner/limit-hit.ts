import os from "node:os";
import { type AppliedLimits, limitPhrases } from "./attempt-limits.js";

/**
 * What the output of a process refused by a limit says, by limit. The kernel tells nobody but
 * the process (an errno, or SIGXFSZ/SIGXCPU), so beyond those signals the bot's last stderr is
 * the only witness; the phrases are the C library's, Node's, Python's and the shells'.
 */
const SAID: [keyof AppliedLimits, RegExp][] = [
  ["fileSizeBytes", /\bEFBIG\b|File too large|File size limit exceeded/],
  [
    "processes",
    /Cannot fork|fork[^\n]{0,40}(Resource temporarily unavailable|EAGAIN|retry)|spawn[^\n]{0,40}\bEAGAIN\b|thread_create[^\n]{0,60}(EAGAIN|Resource temporarily unavailable)/i,
  ],
  ["openFiles", /\bEMFILE\b|Too many open files/],
  ["memoryBytes", /out of memory|Cannot allocate memory|\bENOMEM\b|allocation failed|bad_alloc|MemoryError/i],
  ["cpuSeconds", /CPU time limit exceeded/],
];

const SIGNALLED: [keyof AppliedLimits, NodeJS.Signals][] = [
  ["fileSizeBytes", "SIGXFSZ"],
  ["cpuSeconds", "SIGXCPU"],
];

/**
 * Why a bot that failed (exit code neither 0 nor 75) most likely did, when it was one of its
 * limits: killed by the limit's own signal (as its exit code, 128 + the signal, which bwrap and
 * the shells pass on), or its stderr naming the refusal. Undefined when nothing points at a limit.
 */
export function limitHit(code: number, stderrTail: string, limits: AppliedLimits): string | undefined {
  const phrases = limitPhrases(limits);
  for (const [key, sig] of SIGNALLED) {
    if (phrases[key] && code === 128 + os.constants.signals[sig]) return `killed: ${phrases[key]} (${sig}, exit code ${code})`;
  }
  for (const [key, re] of SAID) {
    const said = phrases[key] && re.exec(stderrTail);
    if (said) return `stopped at its ${phrases[key]}: its output says ${JSON.stringify(said[0].trim())} (exit code ${code})`;
  }
  return undefined;
}
