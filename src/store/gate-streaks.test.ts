import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, storeKinds, type TestStore } from "../test-support/harness.js";
import { bumpGateStreak, readGateStreak, resetGateStreak } from "./gate-streaks.js";
import { deleteWebhook } from "./webhooks.js";

describe.each(storeKinds())("a pull request's run of gate fixes on %s", (kind) => {
  let ts: TestStore;
  beforeAll(async () => {
    ts = await openTestStore(kind);
  });
  afterAll(() => ts.close());

  const key = (gate = "ci", subjectId = "gh:acme/widgets#7", webhookId = "whk_1") => ({ webhookId, subjectId, gate });

  it("counts fixes per webhook, pull request and gate, and a pass ends the run", async () => {
    const db = ts.store.db;
    expect(await readGateStreak(db, key())).toBe(0);
    await bumpGateStreak(db, key(), 1);
    await bumpGateStreak(db, key(), 2);
    await bumpGateStreak(db, key("lint"), 3);
    await bumpGateStreak(db, key("ci", "gh:acme/widgets#8"), 4);
    expect(await readGateStreak(db, key())).toBe(2);
    expect(await readGateStreak(db, key("lint"))).toBe(1);
    expect(await readGateStreak(db, key("ci", "gh:acme/widgets#8"))).toBe(1);
    await resetGateStreak(db, key());
    expect(await readGateStreak(db, key())).toBe(0);
    expect(await readGateStreak(db, key("lint"))).toBe(1);
  });

  it("goes with its webhook", async () => {
    const db = ts.store.db;
    await bumpGateStreak(db, key("ci", "s", "whk_gone"), 1);
    await deleteWebhook(db, "whk_gone");
    expect(await readGateStreak(db, key("ci", "s", "whk_gone"))).toBe(0);
  });
});
