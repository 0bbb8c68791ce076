import { sql, type Kysely, type Migration } from "kysely";
import { isPostgres } from "../compiled.js";

/**
 * PostgreSQL only: the org's monthly run count, split across connections for launches that
 * no limit locks. `launch_delivery` (0007) counted every launch of an org on its one
 * `org_usage` row and held that row's lock through its synchronous commit, so launches of
 * one org, from every process, waited for each other's WAL flush. It now counts on one of
 * `org_run_tallies`' rows per (org, month), picked by the backend's process id, so concurrent
 * connections mostly write rows of their own. The month's run count is `org_usage.runs` plus
 * the month's tallies (`findOrgUsage`); a hand-back first folds the tallies into
 * `org_usage.runs`, so its floor at 0 applies to the whole count. The gate's own launches,
 * those a limit decides, still count on `org_usage` under the org's lock.
 */
export const m0011PgOrgRunTallies: Migration = {
  async up(db: Kysely<any>) {
    if (!isPostgres(db)) return;
    await db.schema
      .createTable("org_run_tallies")
      .addColumn("org_id", "text", (c) => c.notNull().references("orgs.id"))
      .addColumn("month", "text", (c) => c.notNull())
      .addColumn("slot", "integer", (c) => c.notNull())
      .addColumn("runs", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("org_run_tallies_pk", ["org_id", "month", "slot"])
      .execute();
    // 0007's function with its last statement changed: the count goes to a tally row.
    await sql`
      create or replace function launch_delivery(p_team text, p_run jsonb, p_delivery jsonb, p_month text, p_now bigint)
      returns jsonb language plpgsql as $fn$
      declare
        v_held webhook_deliveries%rowtype;
        v_team teams%rowtype;
        v_org orgs%rowtype;
      begin
        select * into v_held from webhook_deliveries
          where tenant_id = p_delivery->>'tenant_id' and idempotency_key = p_delivery->>'idempotency_key';
        if found then
          return jsonb_build_object('kind', 'taken', 'row', to_jsonb(v_held));
        end if;
        select * into v_team from teams where id = p_team;
        if not found then
          return jsonb_build_object('kind', 'gate');
        end if;
        select * into v_org from orgs where id = v_team.org_id;
        if not found or v_org.status <> 'active' or v_team.max_concurrent_runs > 0 or v_team.launch_rate_per_min > 0
           or v_org.monthly_cost_cap_micro > 0 or v_org.monthly_run_quota > 0 then
          return jsonb_build_object('kind', 'gate');
        end if;
        insert into runs select * from jsonb_populate_record(null::runs, p_run || jsonb_build_object('org_id', v_org.id));
        insert into webhook_deliveries select * from jsonb_populate_record(null::webhook_deliveries, p_delivery);
        -- Last: the tally row is still locked until the commit, but few others want it.
        insert into org_run_tallies (org_id, month, slot, runs)
          values (v_org.id, p_month, pg_backend_pid() % 64, 1)
          on conflict (org_id, month, slot) do update set runs = org_run_tallies.runs + 1;
        return jsonb_build_object('kind', 'launched', 'org_id', v_org.id);
      end
      $fn$
    `.execute(db);
  },
};
