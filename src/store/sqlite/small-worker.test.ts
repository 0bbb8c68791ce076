import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { semiSpaceFlagMb } from "./small-worker.js";

const DIST = new URL("../../../dist/store/sqlite/small-worker.js", import.meta.url);

/** Allocates short-lived objects until a young generation has grown to its most. */
const CHURN = "const a = []; for (let i = 0; i < 3e6; i++) { a.push({ i }); if (a.length > 20000) a.length = 0; }";
const NEW_SPACE = `v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size`;

/** In a process started with `flags`: the young generation of a thread from smallYoungWorker, and the event loop's, each after churning. */
function youngGenerations(flags: string[]): { thread: number; eventLoop: number } {
  const thread = `import v8 from "node:v8"; import { parentPort } from "node:worker_threads"; ${CHURN} parentPort.postMessage(${NEW_SPACE});`;
  const script = [
    `import v8 from "node:v8";`,
    `import { smallYoungWorker } from ${JSON.stringify(DIST.href)};`,
    `const worker = smallYoungWorker(new URL("data:text/javascript," + encodeURIComponent(${JSON.stringify(thread)})), {});`,
    `const thread = await new Promise((resolve) => worker.once("message", resolve));`,
    `await new Promise((resolve) => worker.once("exit", resolve));`,
    CHURN,
    `console.log(JSON.stringify({ thread, eventLoop: ${NEW_SPACE} }));`,
  ].join("\n");
  const out = execFileSync(process.execPath, [...flags, "--input-type=module", "-e", script], { encoding: "utf8" });
  return JSON.parse(out) as { thread: number; eventLoop: number };
}

const MB = 1024 * 1024;

describe("smallYoungWorker", () => {
  it("reads --max-semi-space-size from the command line and NODE_OPTIONS", () => {
    expect(semiSpaceFlagMb(["--max-semi-space-size=4", "--heap-growing-percent=50"])).toBe(4);
    expect(semiSpaceFlagMb(["--max-semi-space-size", "8"])).toBe(8);
    expect(semiSpaceFlagMb([], "--max-semi-space-size=2")).toBe(2);
    expect(semiSpaceFlagMb(["--heap-growing-percent=50"])).toBe(0);
  });

  it("gives the thread 1 MB semi-spaces while the event loop keeps the process's --max-semi-space-size", { timeout: 60_000 }, () => {
    const withFlag = youngGenerations(["--max-semi-space-size=8"]);
    expect(withFlag.thread).toBeLessThanOrEqual(2 * MB);
    // The flag was put back: the event loop's young generation grew past what the thread was allowed.
    expect(withFlag.eventLoop).toBeGreaterThan(4 * MB);
    expect(youngGenerations([]).thread).toBeLessThanOrEqual(2 * MB);
  });
});
