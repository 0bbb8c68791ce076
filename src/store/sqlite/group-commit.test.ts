import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, type TestStore } from "../../test-support/harness.js";

describe("SQLite transactions sharing commits", () => {
  let ts: TestStore;
  beforeAll(async () => {
    ts = await openTestStore("sqlite");
  });
  afterAll(() => ts.close());

  const insertCounter = (scope: string) =>
    ts.store.tx(async (tx) => {
      await tx.insertInto("webhook_call_counters").values({ scope, month: "2026-11", calls: 1 }).execute();
      return scope;
    });

  it("commits concurrent transactions together, each with its own result", async () => {
    const scopes = Array.from({ length: 300 }, (_, i) => `s${i}`);
    expect(await Promise.all(scopes.map(insertCounter))).toEqual(scopes);
    const rows = await ts.store.db.selectFrom("webhook_call_counters").select("scope").where("scope", "like", "s%").execute();
    expect(rows).toHaveLength(300);
  });

  it("rolls back a failing transaction alone and hands it its own error", async () => {
    const failing = ts.store.tx(async (tx) => {
      await tx.insertInto("webhook_call_counters").values({ scope: "half", month: "2026-11", calls: 1 }).execute();
      throw new Error("boom");
    });
    const duplicate = insertCounter("s1");
    const fine = insertCounter("fine");
    await expect(failing).rejects.toThrow("boom");
    await expect(duplicate).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" });
    await expect(fine).resolves.toBe("fine");
    const scopes = (await ts.store.db.selectFrom("webhook_call_counters").select("scope").where("scope", "in", ["half", "fine"]).execute()).map((r) => r.scope);
    expect(scopes).toEqual(["fine"]);
  });

  it("keeps working after a batch with failures", async () => {
    await expect(insertCounter("after")).resolves.toBe("after");
  });
});
