import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, storeKinds, type TestStore } from "../test-support/harness.js";
import { insertDelivery, listDeliveries, type NewDelivery } from "./deliveries.js";
import { isUniqueViolation } from "./errors.js";

const row = (id: string, key: string, at: number, webhook = "whk_1"): NewDelivery => ({
  id,
  tenant_id: "team_1",
  webhook_id: webhook,
  provider: "generic",
  status: "accepted",
  idempotency_key: key,
  created_at: at,
  updated_at: at,
});

describe.each(storeKinds())("delivery store on %s", (kind) => {
  let ts: TestStore;

  beforeAll(async () => {
    ts = await openTestStore(kind);
  });
  afterAll(() => ts.close());

  it("inserts rows with attempts 0 and every optional column empty", async () => {
    await insertDelivery(ts.store.db, row("dlv_a", "k-a", 1000));
    const [got] = await listDeliveries(ts.store.db, "whk_1", 10);
    expect(got).toMatchObject({ id: "dlv_a", attempts: 0, run_id: null, denial_reason: null, forge_delivery_id: null, launched_at: null, created_at: 1000 });
  });

  it("refuses a second row under the same tenant and idempotency key", async () => {
    const err = await insertDelivery(ts.store.db, row("dlv_b", "k-a", 2000)).catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    await insertDelivery(ts.store.db, { ...row("dlv_c", "k-a", 2000), tenant_id: "team_2" });
  });

  it("lists one webhook's rows newest first, up to the limit", async () => {
    for (let i = 0; i < 4; i++) await insertDelivery(ts.store.db, row(`dlv_n${i}`, `k-n${i}`, 5000 + i));
    await insertDelivery(ts.store.db, row("dlv_other", "k-other", 9000, "whk_2"));
    const ids = (await listDeliveries(ts.store.db, "whk_1", 3)).map((d) => d.id);
    expect(ids).toEqual(["dlv_n3", "dlv_n2", "dlv_n1"]);
    expect((await listDeliveries(ts.store.db, "whk_2", 100)).map((d) => d.id)).toEqual(["dlv_other"]);
  });
});
