import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, storeKinds, type TestStore } from "../test-support/harness.js";
import { insertDelivery, type NewDelivery } from "./deliveries.js";
import { webhookDeliverySignals } from "./webhook-delivery-signals.js";

let n = 0;
const row = (at: number, status: NewDelivery["status"], eventKind: string | null, refusal: string | null, webhook = "whk_1"): NewDelivery => ({
  id: `dlv_${++n}`,
  tenant_id: "team_1",
  webhook_id: webhook,
  provider: "forge_b",
  status,
  idempotency_key: `row|${n}`,
  event_kind: eventKind,
  refusal_code: refusal,
  created_at: at,
  updated_at: at,
});

describe.each(storeKinds())("a webhook's delivery signals on %s", (kind) => {
  let ts: TestStore;

  beforeAll(async () => {
    ts = await openTestStore(kind);
  });
  afterAll(() => ts.close());

  it("answers nothing for a webhook that received nothing", async () => {
    expect(await webhookDeliverySignals(ts.store.db, "whk_none", 0)).toEqual({ lastReceivedAt: null, refused: 0, lastRefusedAt: null });
  });

  it("counts only unproven refusals after `since`, and names the latest delivery whatever its status", async () => {
    const db = ts.store.db;
    await insertDelivery(db, row(1_000, "invalid", null, "bad_signature"));
    await insertDelivery(db, row(2_000, "invalid", null, "bad_token"));
    await insertDelivery(db, row(3_000, "invalid", null, "bad_signature"));
    // Proven, but unreadable; and refused for want of a secret: neither says the forge holds another secret.
    await insertDelivery(db, row(3_100, "invalid", null, "bad_payload"));
    await insertDelivery(db, row(3_200, "invalid", null, "no_secret"));
    // Proven and parsed, then refused for what it asked (a bot not permitted, say).
    await insertDelivery(db, row(4_000, "invalid", "pull_request", "bot_not_permitted"));
    await insertDelivery(db, row(5_000, "launched", "pull_request", null));
    await insertDelivery(db, row(9_000, "invalid", null, "bad_signature", "whk_2"));
    expect(await webhookDeliverySignals(db, "whk_1", 1_000)).toEqual({ lastReceivedAt: 5_000, refused: 2, lastRefusedAt: 3_000 });
    expect(await webhookDeliverySignals(db, "whk_1", 3_000)).toEqual({ lastReceivedAt: 5_000, refused: 0, lastRefusedAt: null });
  });
});
