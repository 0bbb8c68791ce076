import { ServiceError } from "../core/errors.js";
import type { Principal } from "../tenancy/access.js";
import type { RunLogs } from "./run-logs.js";
import type { RunsApi } from "./runs-api.js";

type RunDetail = Awaited<ReturnType<RunsApi["get"]>>;

/** What a run's live view is sent, in order. */
export type StreamEvent =
  | { type: "run"; run: RunDetail }
  | { type: "output"; attempt: number; stream: "stdout" | "stderr"; text: string }
  | { type: "end"; status: string; reason: "ended" | "gone" };

/** A follower re-reads the store this often: appends made in another process are seen then. */
export const STREAM_POLL_MS = 1000;
const ENDED = new Set(["succeeded", "failed", "failed_resumable", "cancelled"]);

/** The run as the caller may see it now; undefined once it is gone. */
async function readRun(runs: Pick<RunsApi, "get">, p: Principal, runId: string): Promise<RunDetail | undefined> {
  try {
    return await runs.get(p, runId);
  } catch (err) {
    if (err instanceof ServiceError && err.code === "not_found") return undefined;
    throw err;
  }
}

/** What the view shows of the run's state: a change in any of it is sent. */
const stateOf = (run: RunDetail) =>
  JSON.stringify([run.status, run.attempt, run.attempts.length, run.failure_code, run.cancel_requested, "question" in run ? run.question : null]);

/** Where the view has read the output to: an attempt and a byte offset in it. */
interface Cursor {
  attempt: number | undefined;
  offset: number;
}

/**
 * Sends the output kept past the cursor, going on to the next attempt once one is complete, and
 * moves the cursor; whether it caught up with what is kept.
 */
async function sendOutput(
  logs: Pick<RunLogs, "slice">,
  runId: string,
  latest: number | undefined,
  cursor: Cursor,
  send: (event: StreamEvent) => void,
  signal: AbortSignal,
): Promise<boolean> {
  let caughtUp = cursor.attempt === undefined;
  while (cursor.attempt !== undefined && !signal.aborted) {
    const attempt = cursor.attempt;
    const slice = await logs.slice(runId, attempt, cursor.offset);
    for (const piece of slice.pieces) send({ type: "output", attempt, stream: piece.stream, text: piece.text });
    const moved = slice.nextOffset > cursor.offset;
    cursor.offset = slice.nextOffset;
    if (slice.complete && latest !== undefined && attempt < latest) {
      cursor.attempt = attempt + 1;
      cursor.offset = 0;
      continue;
    }
    caughtUp = slice.complete || !moved;
    if (!moved) break;
  }
  return caughtUp;
}

/**
 * A run's live view: its state whenever it changes and each attempt's output as it is kept,
 * until the run ends (an attempt that ended with a question keeps the view open: the run
 * waits for its answer). The caller's right to the run is checked at every read, so a member
 * removed from the team stops seeing it.
 */
export async function followRun(
  deps: { runs: Pick<RunsApi, "get">; logs: Pick<RunLogs, "slice" | "watch"> },
  p: Principal,
  runId: string,
  send: (event: StreamEvent) => void,
  signal: AbortSignal,
  pollMs = STREAM_POLL_MS,
): Promise<void> {
  let wake: () => void = () => undefined;
  const unwatch = deps.logs.watch(runId, () => wake());
  signal.addEventListener("abort", () => wake(), { once: true });
  try {
    let shown = "";
    const cursor: Cursor = { attempt: undefined, offset: 0 };
    while (!signal.aborted) {
      const run = await readRun(deps.runs, p, runId);
      if (!run) return send({ type: "end", status: "deleted", reason: "gone" });
      // The view opens with the run; after that a new state follows the output kept up to it,
      // so an ended run's last output comes before its final state.
      const state = stateOf(run);
      const opening = shown === "";
      const changed = state !== shown;
      shown = state;
      if (opening) send({ type: "run", run });
      const latest = run.attempts.at(-1)?.number;
      cursor.attempt ??= latest;
      const caughtUp = await sendOutput(deps.logs, runId, latest, cursor, send, signal);
      if (changed && !opening) send({ type: "run", run });
      if (ENDED.has(run.status) && caughtUp && cursor.attempt === latest && !waitsForAnswer(run)) {
        return send({ type: "end", status: run.status, reason: "ended" });
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    unwatch();
  }
}

function waitsForAnswer(run: RunDetail): boolean {
  return run.status === "failed_resumable" && run.failure_code === "QUESTION";
}
