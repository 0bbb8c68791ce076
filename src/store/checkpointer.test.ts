import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "./store.js";

describe("WAL checkpoints off the request path", () => {
  it("copies committed rows into the database file while the store is open, losing none", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ckpt-"));
    const file = path.join(dir, "s.db");
    const store = await openStore({ databaseUrl: "", sqlitePath: file });
    for (let round = 0; round < 40; round++) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          store.tx((tx) => tx.insertInto("webhook_call_counters").values({ scope: `s${round}-${i}-${"x".repeat(400)}`, month: "2026-11", calls: 1 }).execute()),
        ),
      );
      await new Promise((r) => setTimeout(r, 20));
    }
    // Automatic checkpoints are off: without the worker these rows would sit in the WAL.
    for (let waited = 0; fs.statSync(file).size <= 900_000 && waited < 6000; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const rows = await store.db.selectFrom("webhook_call_counters").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(2000);
    // The rows reached the database file while the store was open: the worker checkpointed.
    expect(fs.statSync(file).size).toBeGreaterThan(900_000);
    await store.close();
    const reopened = await openStore({ databaseUrl: "", sqlitePath: file });
    const again = await reopened.db.selectFrom("webhook_call_counters").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    expect(Number(again.n)).toBe(2000);
    await reopened.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
