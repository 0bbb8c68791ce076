import type { Insertable } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStore, storeKinds, type TestStore } from "../test-support/harness.js";
import { insertDelivery } from "./deliveries.js";
import { insertRun } from "./runs.js";
import type { RunsTable } from "./schema/runs.js";

// The hand-written inserts write every column, a row's own value or the schema's default
// (schema/new-row.ts): those must be the ones the migrations gave the columns.
describe.each(storeKinds())("new rows' defaults on %s", (kind) => {
  let ts: TestStore;

  beforeAll(async () => {
    ts = await openTestStore(kind);
    await ts.store.db
      .insertInto("orgs")
      .values({ id: "org_d", name: "d", created_at: 1, updated_at: 1 } as never)
      .execute();
    await ts.store.db
      .insertInto("teams")
      .values({ id: "team_d", org_id: "org_d", name: "d", created_at: 1, updated_at: 1 } as never)
      .execute();
  });
  afterAll(() => ts.close());

  it("a run written with the schema's defaults reads back as one the database defaulted", async () => {
    const named = {
      org_id: "org_d",
      team_id: "team_d",
      bot_id: "b",
      status: "queued",
      vars: "{}",
      source: "api",
      actor_kind: "user",
      queued_at: 1,
      created_at: 1,
      updated_at: 1,
    } as const;
    await ts.store.db
      .insertInto("runs")
      .values({ id: "run_db", ...named } as Insertable<RunsTable>)
      .execute();
    await insertRun(ts.store.db, { id: "run_ours", ...named } as Insertable<RunsTable>);
    const rows = await ts.store.db.selectFrom("runs").selectAll().where("id", "in", ["run_db", "run_ours"]).orderBy("id").execute();
    expect(rows).toHaveLength(2);
    expect({ ...rows[1], id: "" }).toEqual({ ...rows[0], id: "" });
  });

  it("so does a delivery", async () => {
    const named = { tenant_id: "team_d", webhook_id: "whk_d", provider: "generic", status: "filtered", created_at: 1, updated_at: 1 } as const;
    await ts.store.db
      .insertInto("webhook_deliveries")
      .values({ id: "dlv_db", idempotency_key: "k-db", ...named })
      .execute();
    await insertDelivery(ts.store.db, { id: "dlv_ours", idempotency_key: "k-ours", ...named });
    const rows = await ts.store.db.selectFrom("webhook_deliveries").selectAll().where("tenant_id", "=", "team_d").orderBy("id").execute();
    expect(rows).toHaveLength(2);
    expect({ ...rows[1], id: "", idempotency_key: "" }).toEqual({ ...rows[0], id: "", idempotency_key: "" });
  });
});
