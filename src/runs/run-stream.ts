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
    let attempt: number | undefined;
    let offset = 0;
    while (!signal.aborted) {
      let run: RunDetail;
      try {
        run = await deps.runs.get(p, runId);
      } catch (err) {
        if (err instanceof ServiceError && err.code === "not_found") return send({ type: "end", status: "deleted", reason: "gone" });
        throw err;
      }
      const state = JSON.stringify([
        run.status,
        run.attempt,
        run.attempts.length,
        run.failure_code,
        run.cancel_requested,
        "question" in run ? run.question : null,
      ]);
      if (state !== shown) {
        shown = state;
        send({ type: "run", run });
      }
      const latest = run.attempts.at(-1)?.number;
      attempt ??= latest;
      let caughtUp = attempt === undefined;
      while (attempt !== undefined && !signal.aborted) {
        const slice = await deps.logs.slice(runId, attempt, offset);
        for (const piece of slice.pieces) send({ type: "output", attempt, stream: piece.stream, text: piece.text });
        const moved = slice.nextOffset > offset;
        offset = slice.nextOffset;
        if (slice.complete && latest !== undefined && attempt < latest) {
          attempt += 1;
          offset = 0;
          continue;
        }
        caughtUp = slice.complete || !moved;
        if (!moved) break;
      }
      if (ENDED.has(run.status) && caughtUp && attempt === latest && !waitsForAnswer(run)) {
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
