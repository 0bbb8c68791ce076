import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { CHECKPOINTER_ENTRY } from "../../test-support/harness.js";
import { openStore } from "../store.js";

describe("WAL checkpoints off the request path", () => {
  it("copies committed rows into the database file while the store is open, losing none", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ckpt-"));
    const file = path.join(dir, "s.db");
    const store = await openStore({ databaseUrl: "", sqlitePath: file, sqliteCheckpointerEntry: CHECKPOINTER_ENTRY });
    for (let round = 0; round < 40; round++) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          store.tx((tx) =>
            tx
              .insertInto("webhook_call_counters")
              .values({ scope: `s${round}-${i}-${"x".repeat(400)}`, month: "2026-11", calls: 1 })
              .execute(),
          ),
        ),
      );
      await new Promise((r) => setTimeout(r, 20));
    }
    // Automatic checkpoints are off: without the worker these rows would sit in the WAL.
    for (let waited = 0; fs.statSync(file).size <= 900_000 && waited < 6000; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const rows = await store.db
      .selectFrom("webhook_call_counters")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(2000);
    // The rows reached the database file while the store was open: the worker checkpointed.
    expect(fs.statSync(file).size).toBeGreaterThan(900_000);
    await store.close();
    const reopened = await openStore({ databaseUrl: "", sqlitePath: file, sqliteCheckpointerEntry: CHECKPOINTER_ENTRY });
    const again = await reopened.db
      .selectFrom("webhook_call_counters")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(again.n)).toBe(2000);
    await reopened.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("restarts the WAL under writes that never stop, so it stays the size of a few checkpoint periods", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ckpt-"));
    const file = path.join(dir, "s.db");
    const store = await openStore({
      databaseUrl: "",
      sqlitePath: file,
      sqliteCheckpointerEntry: CHECKPOINTER_ENTRY,
      sqliteCheckpoint: { everyMs: 100, flushEveryMs: 50 },
    });
    // Rows appended in rowid order, no index: the pages a row dirties are mostly its own.
    await sql`create table filler (body blob not null)`.execute(store.db);
    const body = Buffer.alloc(1000, 7);
    let written = 0;
    let walPeak = 0;
    // Back-to-back shared commits, with no idle moment in which a checkpoint could finish on its
    // own: without the restart the WAL holds every page ever written, and twice its peak is never
    // reached. Until it is, or 10 s: on a busy machine the worker's restarts come later.
    const reusesTheWal = () => written * 1000 > 2 * walPeak;
    for (const started = Date.now(); Date.now() - started < 10_000 && !reusesTheWal(); ) {
      await Promise.all(
        Array.from({ length: 20 }, () =>
          store.tx(async (tx) => {
            await sql`insert into filler (body) values (${body})`.execute(tx);
            written++;
          }),
        ),
      );
      walPeak = Math.max(walPeak, fs.statSync(`${file}-wal`).size);
    }
    const stored = await sql<{ n: number }>`select count(*) as n from filler`.execute(store.db);
    expect(stored.rows[0]!.n).toBe(written);
    // Every row's 1,000 bytes went into the WAL at least once; restarted, the WAL reuses its pages.
    expect(reusesTheWal(), `${written} rows written, WAL peak ${walPeak} bytes`).toBe(true);
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("says so when its thread stops, and the store keeps writing", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ckpt-"));
    const file = path.join(dir, "s.db");
    const errors: unknown[] = [];
    const log = { error: (fields: unknown) => void errors.push(fields) };
    const store = await openStore({ databaseUrl: "", sqlitePath: file, sqliteCheckpointerEntry: new URL("./no-such-checkpointer.js", import.meta.url), log });
    for (let waited = 0; errors.length === 0 && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(errors).toHaveLength(1);
    await store.tx((tx) => tx.insertInto("webhook_call_counters").values({ scope: "s", month: "2026-11", calls: 1 }).execute());
    const row = await store.db.selectFrom("webhook_call_counters").select("calls").where("scope", "=", "s").executeTakeFirst();
    expect(row?.calls).toBe(1);
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
