import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { testDeliveryRow, testRunRow } from "../../test-support/rows.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHECKPOINTER_ENTRY, openTestStore, WRITER_ENTRY, type TestStore } from "../../test-support/harness.js";
import { listDeliveries, type NewDelivery } from "../deliveries.js";
import { isStoreUnavailable, isUniqueViolation } from "../errors.js";
import type { CallLimits, DeliveryCommit } from "../delivery-ledger.js";
import { monthlyWebhookCalls } from "../webhook-calls.js";
import type { RunRow } from "../runs.js";
import { SqliteWriter, WRITER_STOPPED } from "./writer.js";
import { openStore } from "../store.js";
import { findOrgUsage } from "../usage.js";
import { WriteLock } from "./write-lock.js";

const MONTH = "2026-11";

const limits = (webhookId: string, burst = 1000): CallLimits => ({
  webhookId,
  orgId: "org_w",
  rate: 1,
  burst,
  orgMonthlyCalls: 0,
  webhookMonthlyCalls: 0,
  month: MONTH,
  now: 0,
});

function row(id: string, teamId: string, key = `row|${id}`): NewDelivery {
  return testDeliveryRow(id, { tenant_id: teamId, webhook_id: "whk_w", idempotency_key: key });
}

function run(id: string, teamId: string): RunRow {
  return testRunRow(id, teamId, MONTH);
}

/** A launching delivery's writes under `key`: its run, and its row as launched (the row's id is the run's, suffixed). */
function launch(teamId: string, key: string, i: number): DeliveryCommit {
  const r = run(`run_${key}_${i}`, teamId);
  const launched = Object.assign(row(`dlv_${key}_${i}`, teamId, key), { status: "launched" as const, run_id: r.id, reason: null, attempts: 1 });
  return { row: launched, launch: { teamId, run: r, month: MONTH }, replayOf: `dup_${key}_${i}` };
}

describe("a file store's delivery writes on the writer thread", () => {
  let ts: TestStore;
  beforeAll(async () => {
    ts = await openTestStore("sqlite", "file", { eventLoopLoad: { busy: true } });
    const db = ts.store.db;
    await db
      .insertInto("orgs")
      .values({ id: "org_w", name: "w", created_at: 0, updated_at: 0 } as never)
      .execute();
    const team = { org_id: "org_w", status: "active" as const, launch_rate_per_min: 0, created_at: 0, updated_at: 0 };
    await db
      .insertInto("teams")
      .values([
        { ...team, id: "team_free", name: "free", max_concurrent_runs: 0 },
        { ...team, id: "team_capped", name: "capped", max_concurrent_runs: 3 },
      ])
      .execute();
  });
  afterAll(() => ts.close());

  it("launches 1 of 1000 concurrent identical deliveries and records the other 999 as its duplicates", async () => {
    const answers = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => ts.store.ledger.commit({ admission: limits("whk_dup"), ...launch("team_free", "k-dup", i) })),
    );
    const launched = answers.filter((a) => a.kind === "launched");
    expect(launched).toEqual([{ kind: "launched", orgId: "org_w" }]);
    const taken = answers.filter((a) => a.kind === "taken");
    expect(taken).toHaveLength(999);
    expect(new Set(taken.map((a) => a.kind === "taken" && a.recorded))).toEqual(new Set([true]));
    const runs = await ts.store.db.selectFrom("runs").select(["id", "org_id"]).where("team_id", "=", "team_free").execute();
    expect(runs).toHaveLength(1);
    expect(runs[0]?.org_id).toBe("org_w");
    const rows = await ts.store.db.selectFrom("webhook_deliveries").select(["status", "run_id", "reason"]).where("tenant_id", "=", "team_free").execute();
    expect(rows.filter((r) => r.status === "launched")).toHaveLength(1);
    const duplicates = rows.filter((r) => r.status === "duplicate");
    expect(duplicates).toHaveLength(999);
    expect(new Set(duplicates.map((r) => r.run_id))).toEqual(new Set([runs[0]?.id]));
    expect((await findOrgUsage(ts.store.db, "org_w", MONTH)).runs).toBe(1);
    expect(await monthlyWebhookCalls(ts.store.db, "webhook:whk_dup", MONTH)).toBe(1000);
  });

  it("admits exactly the bucket's calls of 200 parallel ones and writes only their rows", async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => ts.store.ledger.commit({ admission: limits("whk_bucket", 10), row: row(`dlv_b${i}`, "team_free") })),
    );
    const admitted = answers.flatMap((a, i) => (a.kind !== "refused" ? [`dlv_b${i}`] : []));
    expect(admitted).toHaveLength(10);
    expect(answers.filter((a) => a.kind !== "refused").every((a) => a.kind === "recorded")).toBe(true);
    const stored = await ts.store.db.selectFrom("webhook_deliveries").select("id").where("id", "like", "dlv_b%").execute();
    expect(stored.map((r) => r.id).sort()).toEqual(admitted.sort());
    expect(await monthlyWebhookCalls(ts.store.db, "webhook:whk_bucket", MONTH)).toBe(10);
  });

  it("leaves a launch a limit applies to to the gate, writing only the call's admission", async () => {
    const answer = await ts.store.ledger.commit({ admission: limits("whk_gate"), ...launch("team_capped", "k-gate", 0) });
    expect(answer).toEqual({ kind: "gate" });
    expect(await ts.store.db.selectFrom("runs").select("id").where("team_id", "=", "team_capped").execute()).toEqual([]);
    expect(await monthlyWebhookCalls(ts.store.db, "webhook:whk_gate", MONTH)).toBe(1);
  });

  it("takes turns with the event loop's transactions: every write of both lands", async () => {
    const threadWrites = Array.from({ length: 300 }, (_, i) => ts.store.ledger.commit({ row: row(`dlv_t${i}`, "team_free") }));
    const loopWrites = Array.from({ length: 300 }, (_, i) =>
      ts.store.tx((tx) =>
        tx
          .insertInto("webhook_call_counters")
          .values({ scope: `turns:${i}`, month: MONTH, calls: i })
          .execute(),
      ),
    );
    await Promise.all([...threadWrites, ...loopWrites]);
    expect(await ts.store.db.selectFrom("webhook_deliveries").select("id").where("id", "like", "dlv_t%").execute()).toHaveLength(300);
    expect(await ts.store.db.selectFrom("webhook_call_counters").select("scope").where("scope", "like", "turns:%").execute()).toHaveLength(300);
  });

  it("hands a failing write its own error, with its code, and commits the others", async () => {
    const [clash, fine] = await Promise.allSettled([
      ts.store.ledger.commit({ row: row("dlv_t0", "team_free") }),
      ts.store.ledger.commit({ row: row("dlv_fine", "team_free") }),
    ]);
    expect(clash.status === "rejected" && isUniqueViolation(clash.reason)).toBe(true);
    expect(fine).toEqual({ status: "fulfilled", value: { kind: "recorded" } });
    expect((await listDeliveries(ts.store.db, "whk_w", 2000)).some((d) => d.id === "dlv_fine")).toBe(true);
  });
});

describe("where a file store writes a delivery", () => {
  it("is the event loop while it is not busy, and the writer thread while it is", async () => {
    // A writer thread that cannot start fails every delivery handed to it: the failures show where each went.
    const load = { busy: false };
    const ts = await openTestStore("sqlite", "file", { eventLoopLoad: load, sqliteWriterEntry: new URL("./no-such-writer.js", import.meta.url) });
    const deliver = (id: string) =>
      ts.store.ledger.commit({ row: row(id, "team_x") }).then(
        () => "stored",
        (err: { code?: string }) => err.code,
      );
    try {
      expect(await deliver("dlv_idle")).toBe("stored");
      load.busy = true;
      expect(await deliver("dlv_busy")).toBe(WRITER_STOPPED);
      load.busy = false;
      expect(await deliver("dlv_idle_again")).toBe("stored");
      expect((await ts.store.db.selectFrom("webhook_deliveries").select("id").orderBy("id").execute()).map((r) => r.id)).toEqual([
        "dlv_idle",
        "dlv_idle_again",
      ]);
    } finally {
      await ts.close();
    }
  });

  it("is always the event loop when the writer thread is turned off (SERVICE_SQLITE_WRITER_THREAD=off)", async () => {
    const ts = await openTestStore("sqlite", "file", {
      eventLoopLoad: { busy: true },
      sqliteWriterThread: false,
      sqliteWriterEntry: new URL("./no-such-writer.js", import.meta.url),
    });
    try {
      await ts.store.ledger.commit({ row: row("dlv_busy_here", "team_x") });
      expect(await ts.store.db.selectFrom("webhook_deliveries").select("id").execute()).toEqual([{ id: "dlv_busy_here" }]);
    } finally {
      await ts.close();
    }
  });
});

describe("a writer thread that stops", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "writer-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("fails the deliveries on it as the store being unavailable, with the thread's error, and a later one starts it again", async () => {
    const file = path.join(dir, "later", "service.db");
    // The thread cannot open a database in a directory that does not exist yet: it stops at once.
    const stops: [Error, number][] = [];
    const writer = new SqliteWriter(WRITER_ENTRY, file, "normal", new WriteLock(), (err, failed) => stops.push([err, failed]));
    const first = await writer.commit({ row: row("dlv_x", "team_x") }).catch((err: unknown) => err);
    expect(first).toMatchObject({ code: WRITER_STOPPED, message: expect.stringContaining("directory does not exist") });
    expect(isStoreUnavailable(first)).toBe(true);
    // Reported once, as the stop it was, with the deliveries it failed.
    expect(stops).toEqual([[first, 1]]);

    const store = await openStore({ databaseUrl: "", sqlitePath: file, sqliteCheckpointerEntry: CHECKPOINTER_ENTRY });
    await store.close();
    expect(await writer.commit({ row: row("dlv_y", "team_x") })).toEqual({ kind: "recorded" });
    await writer.close();
    await expect(writer.commit({ row: row("dlv_z", "team_x") })).rejects.toMatchObject({ code: WRITER_STOPPED });
    // A stop asked for is not reported.
    expect(stops).toHaveLength(1);

    const reopened = await openStore({ databaseUrl: "", sqlitePath: file, sqliteCheckpointerEntry: CHECKPOINTER_ENTRY });
    expect((await reopened.db.selectFrom("webhook_deliveries").select("id").execute()).map((r) => r.id)).toEqual(["dlv_y"]);
    await reopened.close();
  });

  it("after failures in a row, fails deliveries at once for a while instead of starting a thread for each", async () => {
    const file = path.join(dir, "failing", "service.db");
    const writer = new SqliteWriter(WRITER_ENTRY, file, "normal", new WriteLock());
    const attempt = () =>
      writer.commit({ row: row("dlv_f", "team_x") }).then(
        () => "stored",
        (err: { code?: string }) => err.code,
      );
    expect([await attempt(), await attempt()]).toEqual([WRITER_STOPPED, WRITER_STOPPED]);
    // The store exists now, but no thread is started during the pause: the delivery still fails.
    await (await openStore({ databaseUrl: "", sqlitePath: file, sqliteCheckpointerEntry: CHECKPOINTER_ENTRY })).close();
    expect(await attempt()).toBe(WRITER_STOPPED);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await attempt()).toBe("stored");
    await writer.close();
  });
});
