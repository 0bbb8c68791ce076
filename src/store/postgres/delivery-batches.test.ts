import { testDeliveryRow, testRunRow } from "../../test-support/rows.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openTestStore, storeKinds, type TestStore } from "../../test-support/harness.js";
import { listDeliveries, type NewDelivery } from "../deliveries.js";
import { isUniqueViolation } from "../errors.js";
import type { CallLimits, DeliveryCommit } from "../delivery-ledger.js";
import { monthlyWebhookCalls } from "../webhook-calls.js";
import type { RunRow } from "../runs.js";
import { findOrgUsage } from "../usage.js";

const row = (id: string, webhookId: string): NewDelivery => testDeliveryRow(id, { tenant_id: "team_b", webhook_id: webhookId });
const limits = (webhookId: string, burst: number): CallLimits => ({
  webhookId,
  orgId: "org_b",
  rate: 1,
  burst,
  orgMonthlyCalls: 0,
  webhookMonthlyCalls: 0,
  month: "2026-11",
  now: 0,
});

const run = (id: string, teamId: string): RunRow => testRunRow(id, teamId);
/** A launching delivery of `teamId` under `key`: its run `run_{id}`, its row as launched, and a duplicate's row id. */
const launch = (id: string, teamId: string, key: string): DeliveryCommit => ({
  row: { ...row(id, "whk_launch"), tenant_id: teamId, idempotency_key: key, status: "launched", run_id: `run_${id}`, reason: null, attempts: 1 },
  launch: { teamId, run: run(`run_${id}`, teamId), month: "2026-11" },
  replayOf: `dup_${id}`,
});

/** A replay of `key`: the key check, and when another row holds it the duplicate's row `dup_{id}`. */
const replay = (id: string, teamId: string, key: string, webhookId = "whk_launch"): DeliveryCommit => ({
  row: { ...row(id, webhookId), tenant_id: teamId, idempotency_key: key, status: "duplicate", attempts: 1 },
  replayOf: `dup_${id}`,
});

describe.skipIf(!storeKinds().includes("postgres"))("delivery batches on postgres", () => {
  let ts: TestStore;
  beforeAll(async () => {
    ts = await openTestStore("postgres");
    const db = ts.store.db;
    await db
      .insertInto("orgs")
      .values([
        { id: "org_l1", name: "l1", created_at: 0, updated_at: 0 },
        { id: "org_l2", name: "l2", created_at: 0, updated_at: 0 },
      ] as never)
      .execute();
    const team = { status: "active" as const, launch_rate_per_min: 0, max_concurrent_runs: 0, created_at: 0, updated_at: 0 };
    await db
      .insertInto("teams")
      .values([
        { ...team, id: "team_l1a", org_id: "org_l1", name: "l1a" },
        { ...team, id: "team_l1b", org_id: "org_l1", name: "l1b" },
        { ...team, id: "team_l1capped", org_id: "org_l1", name: "l1capped", max_concurrent_runs: 3 },
        { ...team, id: "team_l2", org_id: "org_l2", name: "l2" },
      ])
      .execute();
  });
  afterAll(() => ts.close());

  /** Round trips to `deliver_webhook_calls` while `fn` runs. */
  async function countingBatches<T>(fn: () => Promise<T>): Promise<{ result: T; batches: number }> {
    const spy = vi.spyOn(ts.store.db, "executeQuery");
    try {
      const result = await fn();
      const batches = spy.mock.calls.filter(([query]) => "sql" in query && query.sql.includes("deliver_webhook_calls")).length;
      return { result, batches };
    } finally {
      spy.mockRestore();
    }
  }

  it("sends the calls that wait for the batch in flight together, and answers each as its own", async () => {
    // The first call goes at once; the next ten wait for it and go as one batch, the webhook
    // with a burst of 2 admitting two of its five, in the order they came.
    const calls = () => [
      ts.store.ledger.commit({ admission: limits("whk_first", 10), row: row("dlv_first", "whk_first") }),
      ...Array.from({ length: 5 }, (_, i) => ts.store.ledger.commit({ admission: limits("whk_open", 10), row: row(`dlv_open${i}`, "whk_open") })),
      ...Array.from({ length: 5 }, (_, i) => ts.store.ledger.commit({ admission: limits("whk_tight", 2), row: row(`dlv_tight${i}`, "whk_tight") })),
    ];
    const { result: answers, batches } = await countingBatches(() => Promise.all(calls()));
    expect(batches).toBe(2);
    expect(answers.slice(0, 8)).toEqual(Array(8).fill({ kind: "recorded" }));
    expect(answers.slice(8)).toEqual(Array(3).fill({ kind: "refused", refusal: { kind: "rate_limited", retryAfterSeconds: 1 } }));
    expect((await listDeliveries(ts.store.db, "whk_open", 10)).map((d) => d.id).sort()).toEqual([
      "dlv_open0",
      "dlv_open1",
      "dlv_open2",
      "dlv_open3",
      "dlv_open4",
    ]);
    expect((await listDeliveries(ts.store.db, "whk_tight", 10)).map((d) => d.id).sort()).toEqual(["dlv_tight0", "dlv_tight1"]);
    expect(await monthlyWebhookCalls(ts.store.db, "webhook:whk_tight", "2026-11")).toBe(2);
    expect(await monthlyWebhookCalls(ts.store.db, "org:org_b", "2026-11")).toBe(8);
  });

  it("decides a batch's calls by the quotas as one by one: the org's cap, then the webhook's, counting admitted calls alone", async () => {
    const capped = (webhookId: string, orgMonthlyCalls: number, webhookMonthlyCalls: number): CallLimits => ({
      ...limits(webhookId, 100),
      orgId: "org_capped",
      orgMonthlyCalls,
      webhookMonthlyCalls,
    });
    const first = ts.store.ledger.commit({ admission: capped("whk_c1", 5, 2), row: row("dlv_c0", "whk_c1") });
    const batch = [
      ...Array.from({ length: 3 }, (_, i) => ts.store.ledger.commit({ admission: capped("whk_c1", 5, 2), row: row(`dlv_c1${i}`, "whk_c1") })),
      ...Array.from({ length: 4 }, (_, i) => ts.store.ledger.commit({ admission: capped("whk_c2", 5, 0), row: row(`dlv_c2${i}`, "whk_c2") })),
    ];
    expect((await first).kind).toBe("recorded");
    const kinds = (await Promise.all(batch)).map((a) =>
      a.kind !== "refused" ? "admitted" : a.refusal.kind === "quota_exceeded" ? `quota:${a.refusal.scope}` : a.refusal.kind,
    );
    expect(kinds).toEqual(["admitted", "quota:webhook", "quota:webhook", "admitted", "admitted", "admitted", "quota:org"]);
    expect(await monthlyWebhookCalls(ts.store.db, "org:org_capped", "2026-11")).toBe(5);
    expect(await monthlyWebhookCalls(ts.store.db, "webhook:whk_c1", "2026-11")).toBe(2);
    expect(await monthlyWebhookCalls(ts.store.db, "webhook:whk_c2", "2026-11")).toBe(3);
  });

  it("writes a batch's launches by the one-call rules: launched, taken with a duplicate's row, left to the gate, counted per org; replays' key checks", async () => {
    // Held before the batch: a launch_error row, whose replay the caller retries (no duplicate row).
    await ts.store.ledger.commit({ row: { ...launch("dlv_err", "team_l1a", "k-err").row, status: "launch_error", run_id: null } });
    const first = ts.store.ledger.commit({ ...launch("dlv_l0", "team_l1a", "k-0") });
    // Waiting for the first, one batch: written in key order, so teams alternate and keys repeat within it.
    const batch = [
      launch("dlv_l1", "team_l1a", "k-1"),
      launch("dlv_l1again", "team_l1a", "k-1"),
      launch("dlv_l0again", "team_l1a", "k-0"),
      launch("dlv_l2", "team_l1b", "k-2"),
      launch("dlv_capped", "team_l1capped", "k-3"),
      launch("dlv_l4", "team_l2", "k-4"),
      launch("dlv_l5", "team_l1a", "k-5"),
      launch("dlv_none", "team_none", "k-6"),
      launch("dlv_erragain", "team_l1a", "k-err"),
      { row: row("dlv_plain", "whk_launch") },
      replay("dlv_r0", "team_l1a", "k-0"),
      replay("dlv_rerr", "team_l1a", "k-err"),
      replay("dlv_rfree", "team_l1a", "k-free"),
    ];
    const { result: answers, batches } = await countingBatches(() => Promise.all(batch.map((w) => ts.store.ledger.commit(w))));
    expect(await first).toEqual({ kind: "launched", orgId: "org_l1" });
    expect(batches).toBe(1);
    const outcomes = answers.map((o) => {
      return o.kind === "taken" ? `taken:${o.holder.id}${o.recorded ? "+row" : ""}` : o.kind === "launched" ? `launched:${o.orgId}` : o.kind;
    });
    expect(outcomes).toEqual([
      "launched:org_l1",
      "taken:dlv_l1+row",
      "taken:dlv_l0+row",
      "launched:org_l1",
      "gate",
      "launched:org_l2",
      "launched:org_l1",
      "gate",
      "taken:dlv_err",
      "recorded",
      "taken:dlv_l0+row",
      "taken:dlv_err",
      "free",
    ]);
    const runs = await ts.store.db.selectFrom("runs").select(["id", "org_id"]).where("id", "like", "run_dlv_%").orderBy("id").execute();
    expect(runs).toEqual([
      { id: "run_dlv_l0", org_id: "org_l1" },
      { id: "run_dlv_l1", org_id: "org_l1" },
      { id: "run_dlv_l2", org_id: "org_l1" },
      { id: "run_dlv_l4", org_id: "org_l2" },
      { id: "run_dlv_l5", org_id: "org_l1" },
    ]);
    const duplicates = await ts.store.db
      .selectFrom("webhook_deliveries")
      .select(["id", "status", "run_id", "reason"])
      .where("status", "=", "duplicate")
      .orderBy("id")
      .execute();
    expect(duplicates).toEqual([
      { id: "dup_dlv_l0again", status: "duplicate", run_id: "run_dlv_l0", reason: "duplicate of dlv_l0" },
      { id: "dup_dlv_l1again", status: "duplicate", run_id: "run_dlv_l1", reason: "duplicate of dlv_l1" },
      { id: "dup_dlv_r0", status: "duplicate", run_id: "run_dlv_l0", reason: "duplicate of dlv_l0" },
    ]);
    expect((await findOrgUsage(ts.store.db, "org_l1", "2026-11")).runs).toBe(4);
    expect((await findOrgUsage(ts.store.db, "org_l2", "2026-11")).runs).toBe(1);
  });

  it("writes a batch whose writes fail call by call: the others stored, the failing one refused, each admission counted once", async () => {
    const hook = "whk_fails";
    const deliver = (id: string) => ts.store.ledger.commit({ admission: limits(hook, 10), row: row(id, hook) });
    const first = deliver("dlv_taken");
    // Waiting for the first: the middle call's row reuses its id, which fails the batch's writes.
    const replayOf = (id: string, key: string) => ts.store.ledger.commit({ admission: limits(hook, 10), ...replay(id, "team_b", key, hook) });
    const batch = [
      deliver("dlv_before"),
      deliver("dlv_taken").catch((err: unknown) => err),
      deliver("dlv_after"),
      replayOf("dlv_rheld", "row|dlv_taken"),
      replayOf("dlv_rfree", "k-nobody"),
    ];
    const [before, failed, after, held, free] = await Promise.all(batch);
    await first;
    expect(before).toEqual({ kind: "recorded" });
    expect(after).toEqual({ kind: "recorded" });
    expect(isUniqueViolation(failed)).toBe(true);
    // Retried one by one too: a replay's key check, and its duplicate's row when the key is held.
    expect(held).toMatchObject({ kind: "taken", holder: { id: "dlv_taken" }, recorded: true });
    expect(free).toEqual({ kind: "free" });
    expect((await listDeliveries(ts.store.db, hook, 10)).map((d) => d.id).sort()).toEqual(["dlv_after", "dlv_before", "dlv_taken", "dup_dlv_rheld"]);
    expect(await monthlyWebhookCalls(ts.store.db, `webhook:${hook}`, "2026-11")).toBe(6);
  });

  it("fails every call of a batch the database does not answer, and sends the next batch", async () => {
    const hook = "whk_broken";
    const spy = vi.spyOn(ts.store.db, "executeQuery").mockRejectedValueOnce(new Error("connection terminated"));
    const broken = await ts.store.ledger.commit({ admission: limits(hook, 10), row: row("dlv_lost", hook) }).catch((err: unknown) => err);
    spy.mockRestore();
    expect(broken).toEqual(new Error("connection terminated"));
    expect(await ts.store.ledger.commit({ admission: limits(hook, 10), row: row("dlv_next", hook) })).toEqual({ kind: "recorded" });
    expect((await listDeliveries(ts.store.db, hook, 10)).map((d) => d.id)).toEqual(["dlv_next"]);
  });
});
