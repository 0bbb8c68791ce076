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

type Refusal = Exclude<BodyRead, { kind: "body" }>;

const EMPTY = Buffer.alloc(0);

/**
 * Reads a request's body up to `limit` bytes within `budget`. A refusal stops reading at once: the
 * caller answers and closes the connection, so the rest is never taken in.
 */
export function readBody(req: Readable, headers: IncomingHttpHeaders, limit: number, budget: BodyBudget): Promise<BodyRead> {
  const declared = declaredLength(headers);
  const refused = declared === undefined ? undefined : refuseDeclared(declared, limit, budget);
  if (refused !== undefined) return Promise.resolve(refused);
  const gathered = new GatheredBody(declared, limit, budget);
  if (declared === 0 || req.readableEnded) return Promise.resolve({ kind: "body", body: EMPTY, release: gathered.release });
  return new Promise((resolve) => gather(req, gathered, resolve));
}

/** A declared length is refused before a byte is read: over the limit, or more than the budget holds. */
function refuseDeclared(declared: number, limit: number, budget: BodyBudget): Refusal | undefined {
  if (declared > limit) return { kind: "too_large" };
  if (!budget.take(declared)) return { kind: "busy" };
  return undefined;
}

/** Feeds the request's chunks to `gathered` until its end, a refusal, or the caller going away. */
function gather(req: Readable, gathered: GatheredBody, resolve: (read: BodyRead) => void): void {
  const finish = (read: BodyRead) => {
    req.off("data", onData).off("end", onEnd).off("error", onAbort).off("close", onAbort);
    if (read.kind !== "body") {
      gathered.drop();
      req.pause();
    }
    resolve(read);
  };
  const onData = (chunk: Buffer) => {
    const refused = gathered.add(chunk);
    if (refused !== undefined) finish(refused);
  };
  const onEnd = () => finish({ kind: "body", body: gathered.body(), release: gathered.release });
  const onAbort = () => finish({ kind: "aborted" });
  req.on("data", onData).on("end", onEnd).on("error", onAbort).on("close", onAbort);
}

/**
 * One body's bytes as they come, and the budget they hold. A declared length that comes in more
 * than one chunk is copied into one buffer of that size, so the process never holds a body twice
 * (its chunks and their join); a chunked body is gathered, then joined.
 */
class GatheredBody {
  private whole: Buffer | undefined;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  /** The budget held: the declared length up front, or each chunk of a chunked body as it comes. */
  private taken: number;
  private released = false;

  constructor(
    private readonly declared: number | undefined,
    private readonly limit: number,
    private readonly budget: BodyBudget,
  ) {
    this.taken = declared ?? 0;
  }

  /** Gives the budget back, once. */
  readonly release = (): void => {
    if (this.released) return;
    this.released = true;
    this.budget.give(this.taken);
  };

  /** Takes a chunk in; the refusal when it passes the limit or the budget. */
  add(chunk: Buffer): Refusal | undefined {
    if (this.size + chunk.length > this.limit) return { kind: "too_large" };
    const refused = this.declared === undefined ? this.addChunked(chunk) : this.addDeclared(chunk, this.declared);
    if (refused === undefined) this.size += chunk.length;
    return refused;
  }

  private addChunked(chunk: Buffer): Refusal | undefined {
    if (!this.budget.take(chunk.length)) return { kind: "busy" };
    this.taken += chunk.length;
    this.chunks.push(chunk);
    return undefined;
  }

  private addDeclared(chunk: Buffer, declared: number): Refusal | undefined {
    // The whole body in one chunk: handed over as it is.
    if (this.size === 0 && chunk.length === declared) {
      this.chunks.push(chunk);
      return undefined;
    }
    this.whole ??= Buffer.allocUnsafe(declared);
    if (this.size + chunk.length > this.whole.length) return { kind: "too_large" };
    this.whole.set(chunk, this.size);
    return undefined;
  }

  /** The bytes read, joined. */
  body(): Buffer {
    if (this.whole !== undefined) return this.whole.subarray(0, this.size);
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
  }

  /** A refusal: the budget is given back and the bytes are let go. */
  drop(): void {
    this.release();
    this.whole = undefined;
    this.chunks.length = 0;
  }
}

/** Content-Length when the body is framed by it; undefined for a chunked body. */
function declaredLength(headers: IncomingHttpHeaders): number | undefined {
  if (headers["transfer-encoding"] !== undefined) return undefined;
  const raw = headers["content-length"];
  return raw === undefined ? 0 : Number(raw);
}
