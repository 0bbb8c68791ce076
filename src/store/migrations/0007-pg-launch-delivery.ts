import { sql, type Kysely, type Migration } from "kysely";
import { isPostgres } from "../compiled.js";

/**
 * PostgreSQL only: a webhook delivery's launch in one round trip. `launch_delivery` answers
 * `taken` (with the row) when the delivery's idempotency key is held already; `gate` when the
 * team is unknown, its org is not active, or the team or org sets a limit (the gate's locked
 * transaction decides those); otherwise it writes the run (its org taken from the team), the
 * delivery row and the org's run counter, and answers `launched`. The caller takes this path
 * only for launches that do not bypass the gate and when no platform default sets a limit,
 * so `gate` means exactly the launches `decideLaunch` would need more than org status for.
 * It replaces 0006's `launch_run`, which needed the key looked up and team and org read first.
 */
export const m0007PgLaunchDelivery: Migration = {
  async up(db: Kysely<any>) {
    if (!isPostgres(db)) return;
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
        -- Last, as in the gate's transaction: the org's counter is the row launches share.
        insert into org_usage (org_id, month, runs, cost_micro, input_tokens, output_tokens, aggregate_tokens, updated_at)
          values (v_org.id, p_month, 1, 0, 0, 0, 0, p_now)
          on conflict (org_id, month) do update set runs = org_usage.runs + 1, updated_at = p_now;
        return jsonb_build_object('kind', 'launched', 'org_id', v_org.id);
      end
      $fn$
    `.execute(db);
    await sql`drop function if exists launch_run(jsonb, jsonb, text, bigint)`.execute(db);
  },
};
