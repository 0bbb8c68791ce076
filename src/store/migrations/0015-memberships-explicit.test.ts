import { afterEach, describe, expect, it } from "vitest";
import { storeUpTo } from "../../test-support/migrated-store.js";
import { storeKinds } from "../../test-support/harness.js";

describe.each(storeKinds())("migration 0015 on %s", (kind) => {
  let close: (() => Promise<void>) | undefined;
  afterEach(() => close?.());

  it("makes every team member an org member once (role member, the earliest joining time), and keeps existing org roles", async () => {
    const up = await storeUpTo(kind, "0014_pg_batch_writes_inline");
    close = up.close;
    const db = up.store.db;
    await db
      .insertInto("orgs")
      .values({
        id: "org_1",
        name: "A",
        status: "active",
        monthly_cost_cap_micro: 0,
        monthly_run_quota: 0,
        memory_quota_bytes: 0,
        monthly_webhook_calls: 0,
        credential_audience: "all",
        created_at: 1,
        updated_at: 1,
      } as never)
      .execute();
    for (const team of ["tm_1", "tm_2"]) {
      await db
        .insertInto("teams")
        .values({
          id: team,
          org_id: "org_1",
          name: team,
          status: "active",
          max_concurrent_runs: 0,
          launch_rate_per_min: 0,
          created_at: 1,
          updated_at: 1,
        } as never)
        .execute();
    }
    for (const user of ["usr_a", "usr_b"])
      await db
        .insertInto("users")
        .values({ id: user, login: user, name: user, super_admin: 0, created_at: 1 } as never)
        .execute();
    await db
      .insertInto("team_members")
      .values([
        { team_id: "tm_1", user_id: "usr_a", role: "member", created_at: 30 },
        { team_id: "tm_2", user_id: "usr_a", role: "admin", created_at: 20 },
        { team_id: "tm_1", user_id: "usr_b", role: "member", created_at: 40 },
      ])
      .execute();
    await db.insertInto("org_members").values({ org_id: "org_1", user_id: "usr_b", role: "admin", created_at: 5 }).execute();

    const { error } = await up.migrator.migrateToLatest();
    expect(error).toBeUndefined();
    const rows = await db.selectFrom("org_members").select(["user_id", "role", "created_at"]).orderBy("user_id").execute();
    expect(rows.map((r) => ({ ...r, created_at: Number(r.created_at) }))).toEqual([
      { user_id: "usr_a", role: "member", created_at: 20 },
      { user_id: "usr_b", role: "admin", created_at: 5 },
    ]);
    const users = await db.selectFrom("users").select(["id", "deactivated_at"]).execute();
    expect(users.every((u) => u.deactivated_at === null)).toBe(true);
  });
});
