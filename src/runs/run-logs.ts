import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import { notFound } from "../core/errors.js";
import { inBatches, Periodic } from "../core/periodic.js";
import { appendRunLog, attemptStatus, deleteRunLogsBefore, findRunLog, readRunLogChunks } from "../store/run-logs.js";
import type { RunLogSettings } from "../config/config.js";
import type { Store } from "../store/store.js";
import type { Access, Principal } from "../tenancy/access.js";
import type { AttemptOutputStore, OutputChunk } from "./runner/bot-output.js";
import { visibleRun } from "./visible-run.js";

/** One read of an attempt's output from a byte offset. */
export interface LogSlice {
  text: string;
  /** Where the next read starts: the byte offset after what `text` holds. */
  nextOffset: number;
  /** The attempt has ended and everything it printed (and kept) was read. */
  complete: boolean;
  /** Pieces with their stream, for the live view. */
  pieces: { stream: "stdout" | "stderr"; text: string }[];
}

/** A read answers at most this much text; the caller reads on from `nextOffset`. */
export const LOG_READ_BYTES = 256 * 1024;
/** How often every replica forgets expired output. */
const SWEEP_EVERY_MS = 10 * 60_000;
/** Attempts' logs forgotten per pass at most. */
const SWEEP_BATCH = 500;

/**
 * Each attempt's output: appended by the runner protocol as the bot prints it (credentials are
 * masked by the runner before), bounded to its head and tail, read by team members from a byte
 * offset, and forgotten after the retention period. Appends in this process are told to
 * listeners at once; a reader in another process sees them at its next read.
 */
export class RunLogs implements AttemptOutputStore {
  private readonly listeners = new Map<string, Set<() => void>>();
  /** Its timer: the sweepers' catalog (src/sweepers.ts) names, starts and stops it. */
  readonly periodic: Periodic;

  constructor(private readonly deps: { store: Store; clock: Clock; access: Access; settings: RunLogSettings; log: Logger }) {
    this.periodic = new Periodic(SWEEP_EVERY_MS, () => this.tick(deps.clock.now()));
  }

  async append(runId: string, attempt: number, chunks: OutputChunk[]): Promise<void> {
    const pieces = chunks.map((c) => ({ stream: c.stream, text: c.text, bytes: Buffer.byteLength(c.text) }));
    if (pieces.length === 0) return;
    const now = this.deps.clock.now();
    await this.deps.store.tx((tx) => appendRunLog(tx, runId, attempt, pieces, this.deps.settings, now));
    for (const wake of this.listeners.get(runId) ?? []) wake();
  }

  /** Calls `wake` after each append to the run's output in this process, until the returned function is called. */
  watch(runId: string, wake: () => void): () => void {
    const set = this.listeners.get(runId) ?? new Set();
    set.add(wake);
    this.listeners.set(runId, set);
    return () => {
      set.delete(wake);
      if (set.size === 0) this.listeners.delete(runId);
    };
  }

  /** An attempt's output from `offset`, for a member of the run's team; an attempt never claimed is not found. */
  async read(p: Principal, runId: string, attempt: number, offset: number): Promise<LogSlice> {
    await visibleRun(this.deps.store.db, this.deps.access, p, runId, "member");
    return this.slice(runId, attempt, offset);
  }

  /** The same read, once the caller's right to the run is known. */
  async slice(runId: string, attempt: number, offset: number): Promise<LogSlice> {
    const db = this.deps.store.db;
    const status = await attemptStatus(db, runId, attempt);
    if (!status) throw notFound("attempt");
    const ended = status !== "running";
    const log = await findRunLog(db, runId, attempt);
    const produced = log?.produced_bytes ?? 0;
    const from = Math.min(Math.max(0, offset), produced);
    const chunks = log ? await readRunLogChunks(db, runId, attempt, from, LOG_READ_BYTES) : [];
    const pieces: LogSlice["pieces"] = [];
    let at = from;
    for (const c of chunks) {
      if (c.start > at) pieces.push({ stream: "stderr", text: droppedMarker(c.start - at) });
      const skip = Math.max(0, at - c.start);
      pieces.push({ stream: c.stream, text: skip > 0 ? Buffer.from(c.text).subarray(skip).toString() : c.text });
      at = c.start + c.bytes;
    }
    // Past the last kept piece only a dropped stretch can remain (the tail was cut to nothing).
    if (chunks.length === 0 && at < produced) {
      pieces.push({ stream: "stderr", text: droppedMarker(produced - at) });
      at = produced;
    }
    return { text: pieces.map((x) => x.text).join(""), nextOffset: at, complete: ended && at >= produced, pieces };
  }

  /** One retention pass: forgets the output of attempts silent for longer than the retention period. */
  tick(now: number): Promise<number> {
    return inBatches(SWEEP_BATCH, (limit) => this.deps.store.tx((tx) => deleteRunLogsBefore(tx, now - this.deps.settings.retentionMs, limit)));
  }
}

/** Said where output was dropped between the kept head and tail. */
export function droppedMarker(bytes: number): string {
  return `\n[… ${bytes} bytes of output not kept: each attempt keeps its first and last part …]\n`;
}
