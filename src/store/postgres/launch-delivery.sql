-- A delivery's launch in one call: `taken` with the holder's row when its key is held, `gate` when
-- the team is unknown, its org is not active or either sets a limit, else the run and the row
-- written and `launched`. The run is counted on a tally row per backend, so connections seldom
-- wait for each other's; `p_now` is not read.
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
$fn$;
