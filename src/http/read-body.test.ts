import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { BodyBudget } from "./body-budget.js";
import { readBody } from "./read-body.js";

/** A request stream that delivers `chunks` one turn after another, then ends. */
function request(chunks: Buffer[]): PassThrough {
  const req = new PassThrough();
  (async () => {
    for (const chunk of chunks) {
      await new Promise((resolve) => setImmediate(resolve));
      req.write(chunk);
    }
    req.end();
  })();
  return req;
}

const bytes = (n: number, fill: number) => Buffer.alloc(n, fill);

describe("readBody", () => {
  it("reads a declared length that comes in many chunks into one buffer, byte for byte", async () => {
    const parts = [bytes(3, 1), bytes(5, 2), bytes(2, 3)];
    const budget = new BodyBudget(100);
    const read = await readBody(request(parts), { "content-length": "10" }, 50, budget);
    expect(read.kind).toBe("body");
    if (read.kind !== "body") return;
    expect(read.body.equals(Buffer.concat(parts))).toBe(true);
    expect(budget.inUse).toBe(10);
    read.release();
    read.release();
    expect(budget.inUse).toBe(0);
  });

  it("hands a declared body that comes in one chunk over as it is", async () => {
    const only = bytes(10, 7);
    const read = await readBody(request([only]), { "content-length": "10" }, 50, new BodyBudget(100));
    expect(read.kind === "body" && read.body === only).toBe(true);
  });

  it("gathers a chunked body chunk by chunk within the budget", async () => {
    const parts = [bytes(4, 1), bytes(4, 2)];
    const budget = new BodyBudget(100);
    const read = await readBody(request(parts), { "transfer-encoding": "chunked" }, 50, budget);
    expect(read.kind === "body" && read.body.equals(Buffer.concat(parts))).toBe(true);
    expect(budget.inUse).toBe(8);
  });

  it.each([
    ["declared past the limit, refused unread", { "content-length": "60" }, [bytes(60, 1)], "too_large"],
    ["chunked past the limit, refused at the chunk that passed it", { "transfer-encoding": "chunked" }, [bytes(30, 1), bytes(30, 1)], "too_large"],
    ["declared past the budget, refused unread", { "content-length": "40" }, [bytes(40, 1)], "busy"],
    ["chunked past the budget", { "transfer-encoding": "chunked" }, [bytes(20, 1), bytes(20, 1)], "busy"],
  ] as const)("%s, and gives back what it took", async (_name, headers, parts, kind) => {
    const budget = new BodyBudget(30);
    expect((await readBody(request([...parts]), headers, 50, budget)).kind).toBe(kind);
    expect(budget.inUse).toBe(0);
  });

  it("answers aborted when the caller goes away before the end, and gives the budget back", async () => {
    const req = new PassThrough();
    const budget = new BodyBudget(100);
    const reading = readBody(req, { "content-length": "10" }, 50, budget);
    req.write(bytes(4, 1));
    req.destroy();
    expect((await reading).kind).toBe("aborted");
    expect(budget.inUse).toBe(0);
  });
});
