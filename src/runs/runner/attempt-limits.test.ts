import { describe, expect, it } from "vitest";
import { parseBotsFile } from "./bot-commands.js";
import { countsPerNamespace, formatBytes, parseCeilings, prlimitArgs } from "./attempt-limits.js";
import { limitHit } from "./limit-hit.js";

const MIB = 2 ** 20;

describe("an attempt's resource limits", () => {
  it("become prlimit options, soft = hard, no core dumps, SIGXCPU 5 CPU seconds before SIGKILL", () => {
    expect(prlimitArgs({ memoryBytes: 512 * MIB, processes: 64, fileSizeBytes: MIB, openFiles: 256, cpuSeconds: 30 })).toEqual([
      "--core=0:0",
      `--data=${512 * MIB}:${512 * MIB}`,
      "--nproc=64:64",
      `--fsize=${MIB}:${MIB}`,
      "--nofile=256:256",
      "--cpu=30:35",
    ]);
    expect(prlimitArgs({})).toEqual(["--core=0:0"]);
  });

  it("stay within the runner's own hard limits, read from /proc/self/limits", () => {
    const text = [
      "Limit                     Soft Limit           Hard Limit           Units     ",
      "Max cpu time              unlimited            unlimited            seconds   ",
      "Max file size             unlimited            unlimited            bytes     ",
      "Max data size             unlimited            unlimited            bytes     ",
      "Max processes             96365                96365                processes ",
      "Max open files            1024                 524288               files     ",
    ].join("\n");
    expect(parseCeilings(text)).toEqual({ nproc: 96365, nofile: 524288 });
  });

  it("count processes per user namespace from Linux 5.14", () => {
    expect(["6.1.0-28-amd64", "5.14.0", "6.18.44-fc"].map(countsPerNamespace)).toEqual([true, true, true]);
    expect(["5.10.0-30-amd64", "4.19.0", ""].map(countsPerNamespace)).toEqual([false, false, false]);
  });

  it("are said in MiB or GiB", () => {
    expect([MIB, 1536 * MIB, 2048 * MIB, 1000].map(formatBytes)).toEqual(["1 MiB", "1536 MiB", "2 GiB", "1000 bytes"]);
  });

  it("are read from a bot's entry in the bots file (0: none), and a wrong one is refused with the file's other problems", () => {
    const bots = parseBotsFile(
      JSON.stringify({
        a: { command: ["x"], limits: { memory_mib: 8192, processes: 0, file_size_mib: 1, open_files: 64, cpu_seconds: 30 } },
        b: { command: ["x"] },
      }),
      "/bots",
    );
    expect(bots.get("a")?.limits).toEqual({ memoryMib: 8192, processes: null, fileSizeMib: 1, openFiles: 64, cpuSeconds: 30 });
    expect(bots.get("b")).not.toHaveProperty("limits");
    const bad = (limits: unknown) => () => parseBotsFile(JSON.stringify({ a: { command: ["x"], limits } }), "/bots", "bots.json");
    expect(bad({ memory: 1 })).toThrow('bots.json: a.limits: unknown limit "memory" (known: memory_mib, processes, file_size_mib, open_files, cpu_seconds)');
    expect(bad({ processes: -1 })).toThrow("bots.json: a.limits.processes must be a whole number (0: no limit)");
    expect(bad({ open_files: "64" })).toThrow("a.limits.open_files must be a whole number");
    expect(bad([1])).toThrow("a.limits must be an object of memory_mib");
  });
});

describe("a failure put down to a limit", () => {
  const limits = { memoryBytes: 4096 * MIB, processes: 64, fileSizeBytes: 1024 * MIB, openFiles: 256, cpuSeconds: 1200 };

  it.each([
    [153, "", "killed: file size limit 1 GiB (SIGXFSZ, exit code 153)"],
    [152, "", "killed: CPU time limit 1200 s per process (SIGXCPU, exit code 152)"],
    [1, "Error: EFBIG: file too large, write", 'stopped at its file size limit 1 GiB: its output says "EFBIG" (exit code 1)'],
    [2, "sh: 1: Cannot fork\n", 'stopped at its process limit 64: its output says "Cannot fork" (exit code 2)'],
    [1, "Error: spawn EAGAIN\n    at …", 'stopped at its process limit 64: its output says "spawn EAGAIN" (exit code 1)'],
    [128, "fatal: unable to fork: Resource temporarily unavailable", "stopped at its process limit 64"],
    [1, "Error: EMFILE: too many open files, open 'x'", 'stopped at its open files limit 256 per process: its output says "EMFILE"'],
    [1, "RangeError: Array buffer allocation failed", 'stopped at its memory limit 4 GiB per process: its output says "allocation failed" (exit code 1)'],
    [134, "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory", "stopped at its memory limit 4 GiB per process"],
    [134, "terminate called after throwing an instance of 'std::bad_alloc'", "memory limit"],
    [1, "MemoryError", "memory limit"],
  ])("exit code %i with %j: %s", (code, stderr, said) => {
    expect(limitHit(code, stderr, limits)).toContain(said);
  });

  it("is not claimed for an ordinary failure, nor for a limit that was not set", () => {
    expect(limitHit(1, "Error: tests failed\n", limits)).toBeUndefined();
    expect(limitHit(137, "", limits)).toBeUndefined();
    expect(limitHit(1, "getaddrinfo EAI_AGAIN example.com", limits)).toBeUndefined();
    expect(limitHit(153, "File size limit exceeded", {})).toBeUndefined();
    expect(limitHit(1, "Cannot allocate memory", { processes: 64 })).toBeUndefined();
  });
});
