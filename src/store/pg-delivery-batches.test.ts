import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openTestStore, storeKinds, type TestStore } from "../test-support/harness.js";
import { listDeliveries, type NewDelivery } from "./deliveries.js";
import { isUniqueViolation } from "./errors.js";
import { monthlyWebhookCalls, type CallLimits } from "./intake.js";

const row = (id: string, webhookId: string): NewDelivery => ({
  id, tenant_id: "team_b", webhook_id: webhookId, provider: "forge_b", status: "filtered", idempotency_key: `row|${id}`,
  payload_sha256: null, event_kind: null, event_action: null, project_path: null, subject_id: null, subject_sha: null, parent_subject_id: null,
  source_ip: null, bot_id: null, run_id: null, reason: "filtered", denial_reason: null, forge_delivery_id: null, launched_at: null,
  failed_at: null, attempts: 0, created_at: 1, updated_at: 1,
});
const limits = (webhookId: string, burst: number): CallLimits => ({
  webhookId, orgId: "org_b", rate: 1, burst, orgMonthlyCalls: 0, webhookMonthlyCalls: 0, month: "2026-11", now: 0,
});

describe.skipIf(!storeKinds().includes("postgres"))("delivery batches on postgres", () => {
  let ts: TestStore;
  beforeAll(async () => {
    ts = await openTestStore("postgres");
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
      ts.store.deliver(limits("whk_first", 10), { row: row("dlv_first", "whk_first") }),
      ...Array.from({ length: 5 }, (_, i) => ts.store.deliver(limits("whk_open", 10), { row: row(`dlv_open${i}`, "whk_open") })),
      ...Array.from({ length: 5 }, (_, i) => ts.store.deliver(limits("whk_tight", 2), { row: row(`dlv_tight${i}`, "whk_tight") })),
    ];
    const { result: answers, batches } = await countingBatches(() => Promise.all(calls()));
    expect(batches).toBe(2);
    expect(answers.slice(0, 8)).toEqual(Array(8).fill({ admission: { kind: "admitted" }, outcome: { kind: "recorded" } }));
    expect(answers.slice(8)).toEqual(Array(3).fill({ admission: { kind: "rate_limited", retryAfterSeconds: 1 } }));
    expect((await listDeliveries(ts.store.db, "whk_open", 10)).map((d) => d.id).sort()).toEqual(["dlv_open0", "dlv_open1", "dlv_open2", "dlv_open3", "dlv_open4"]);
    expect((await listDeliveries(ts.store.db, "whk_tight", 10)).map((d) => d.id).sort()).toEqual(["dlv_tight0", "dlv_tight1"]);
    expect(await monthlyWebhookCalls(ts.store.db, "webhook:whk_tight", "2026-11")).toBe(2);
    expect(await monthlyWebhookCalls(ts.store.db, "org:org_b", "2026-11")).toBe(8);
  });

  it("decides a batch's calls by the quotas as one by one: the org's cap, then the webhook's, counting admitted calls alone", async () => {
    const capped = (webhookId: string, orgMonthlyCalls: number, webhookMonthlyCalls: number): CallLimits =>
      ({ ...limits(webhookId, 100), orgId: "org_capped", orgMonthlyCalls, webhookMonthlyCalls });
    const first = ts.store.deliver(capped("whk_c1", 5, 2), { row: row("dlv_c0", "whk_c1") });
    const batch = [
      ...Array.from({ length: 3 }, (_, i) => ts.store.deliver(capped("whk_c1", 5, 2), { row: row(`dlv_c1${i}`, "whk_c1") })),
      ...Array.from({ length: 4 }, (_, i) => ts.store.deliver(capped("whk_c2", 5, 0), { row: row(`dlv_c2${i}`, "whk_c2") })),
    ];
    expect((await first).admission.kind).toBe("admitted");
    const kinds = (await Promise.all(batch)).map((a) => (a.admission.kind === "quota_exceeded" ? `quota:${a.admission.scope}` : a.admission.kind));
    expect(kinds).toEqual(["admitted", "quota:webhook", "quota:webhook", "admitted", "admitted", "admitted", "quota:org"]);
    expect(await monthlyWebhookCalls(ts.store.db, "org:org_capped", "2026-11")).toBe(5);
    expect(await monthlyWebhookCalls(ts.store.db, "webhook:whk_c1", "2026-11")).toBe(2);
    expect(await monthlyWebhookCalls(ts.store.db, "webhook:whk_c2", "2026-11")).toBe(3);
  });

  it("writes a batch whose writes fail call by call: the others stored, the failing one refused, each admission counted once", async () => {
    const hook = "whk_fails";
    const deliver = (id: string) => ts.store.deliver(limits(hook, 10), { row: row(id, hook) });
    const first = deliver("dlv_taken");
    // Waiting for the first: the middle call's row reuses its id, which fails the batch's writes.
    const batch = [deliver("dlv_before"), deliver("dlv_taken").catch((err: unknown) => err), deliver("dlv_after")];
    const [before, failed, after] = await Promise.all(batch);
    await first;
    expect(before).toEqual({ admission: { kind: "admitted" }, outcome: { kind: "recorded" } });
    expect(after).toEqual({ admission: { kind: "admitted" }, outcome: { kind: "recorded" } });
    expect(isUniqueViolation(failed)).toBe(true);
    expect((await listDeliveries(ts.store.db, hook, 10)).map((d) => d.id).sort()).toEqual(["dlv_after", "dlv_before", "dlv_taken"]);
    expect(await monthlyWebhookCalls(ts.store.db, `webhook:${hook}`, "2026-11")).toBe(4);
  });

  it("fails every call of a batch the database does not answer, and sends the next batch", async () => {
    const hook = "whk_broken";
    const spy = vi.spyOn(ts.store.db, "executeQuery").mockRejectedValueOnce(new Error("connection terminated"));
    const broken = await ts.store.deliver(limits(hook, 10), { row: row("dlv_lost", hook) }).catch((err: unknown) => err);
    spy.mockRestore();
    expect(broken).toEqual(new Error("connection terminated"));
    expect(await ts.store.deliver(limits(hook, 10), { row: row("dlv_next", hook) })).toEqual({ admission: { kind: "admitted" }, outcome: { kind: "recorded" } });
    expect((await listDeliveries(ts.store.db, hook, 10)).map((d) => d.id)).toEqual(["dlv_next"]);
  });
});
