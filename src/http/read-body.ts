import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import type { BodyBudget } from "./body-budget.js";

/** A body read whole, and the budget to give back once the caller is done with it. */
export type BodyRead =
  | { kind: "body"; body: Buffer; release: () => void }
  /** Longer than the limit: refused at the header when declared, else at the chunk that passed it. */
  | { kind: "too_large" }
  /** The process holds as many body bytes as its budget allows. */
  | { kind: "busy" }
  /** The caller went away before the end. */
  | { kind: "aborted" };

const EMPTY = Buffer.alloc(0);

/**
 * Reads a request's body up to `limit` bytes within `budget`. A refusal stops reading at once: the
 * caller answers and closes the connection, so the rest is never taken in.
 */
export function readBody(req: Readable, headers: IncomingHttpHeaders, limit: number, budget: BodyBudget): Promise<BodyRead> {
  const declared = declaredLength(headers);
  if (declared !== undefined) {
    if (declared > limit) return Promise.resolve({ kind: "too_large" });
    if (!budget.take(declared)) return Promise.resolve({ kind: "busy" });
  }
  let taken = declared ?? 0;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    budget.give(taken);
  };
  if (declared === 0 || req.readableEnded) return Promise.resolve({ kind: "body", body: EMPTY, release });

  return new Promise((resolve) => {
    // A declared length that comes in more than one chunk is copied into one buffer of that size,
    // so the process never holds a body twice (its chunks and their join); a chunked body is
    // gathered, then joined.
    let whole: Buffer | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (read: BodyRead) => {
      req.off("data", onData).off("end", onEnd).off("error", onAbort).off("close", onAbort);
      if (read.kind !== "body") {
        release();
        whole = undefined;
        chunks.length = 0;
        req.pause();
      }
      resolve(read);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit) return finish({ kind: "too_large" });
      if (declared === undefined) {
        if (!budget.take(chunk.length)) return finish({ kind: "busy" });
        taken += chunk.length;
        chunks.push(chunk);
      } else if (size === 0 && chunk.length === declared) {
        chunks.push(chunk);
      } else {
        whole ??= Buffer.allocUnsafe(declared);
        if (size + chunk.length > whole.length) return finish({ kind: "too_large" });
        whole.set(chunk, size);
      }
      size += chunk.length;
    };
    const joined = () => (whole !== undefined ? whole.subarray(0, size) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    const onEnd = () => finish({ kind: "body", body: joined(), release });
    const onAbort = () => finish({ kind: "aborted" });
    req.on("data", onData).on("end", onEnd).on("error", onAbort).on("close", onAbort);
  });
}

/** Content-Length when the body is framed by it; undefined for a chunked body. */
function declaredLength(headers: IncomingHttpHeaders): number | undefined {
  if (headers["transfer-encoding"] !== undefined) return undefined;
  const raw = headers["content-length"];
  return raw === undefined ? 0 : Number(raw);
}
