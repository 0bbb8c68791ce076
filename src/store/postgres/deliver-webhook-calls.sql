-- A batch of webhook calls, the ledger's commit on PostgreSQL (store/postgres/delivery-ledger.ts);
-- its SQLite twin is store/sqlite/commit-delivery.ts. Each call has `delivery` (the row) and may
-- have `admission` (admit_webhook_call's arguments), `team`, `run`, `month` (a launch) and
-- `duplicate` (a replay's own row id; without `run`, the key check alone). `answers` holds one
-- {verdict, outcome} per call, in order. Admissions commit per webhook and month without waiting
-- for their flush, so their rows are not held through one; the writes then commit together,
-- synchronously, and a failed write answers each admitted call {verdict, retry: true} (a batch of
-- one raises its error). A procedure, to commit between; call it outside a transaction block.
create or replace procedure deliver_webhook_calls(p_calls jsonb, inout answers jsonb default null)
language plpgsql as $fn$
declare
  n int := jsonb_array_length(p_calls);
  verdicts text[] := array_fill('admitted'::text, array[n]);
  outcomes jsonb[] := array_fill(null::jsonb, array[n]);
  retry boolean := false;
  c record;
  g record;
  k int;
  group_verdicts text[];
  v_delivery webhook_deliveries;
  v_held webhook_deliveries;
  v_run runs;
  v_team teams;
  v_org orgs;
  v_team_id text;
  v_gate boolean;
  launched_orgs text[] := '{}';
  launched_months text[] := '{}';
begin
  for g in select jsonb_agg(value->'admission' order by ordinality) as calls, array_agg(ordinality::int order by ordinality) as at
           from jsonb_array_elements(p_calls) with ordinality where jsonb_typeof(value->'admission') = 'array'
           group by value->'admission'->>0, value->'admission'->>6 order by value->'admission'->>0, value->'admission'->>6 loop
    perform set_config('synchronous_commit', 'off', true);
    group_verdicts := admit_webhook_calls(g.calls);
    for k in 1..array_length(g.at, 1) loop
      verdicts[g.at[k]] := group_verdicts[k];
    end loop;
    commit;
  end loop;
  begin
    for c in select value as v, ordinality::int as i from jsonb_array_elements(p_calls) with ordinality
             order by value->'delivery'->>'tenant_id', value->'delivery'->>'idempotency_key' loop
      continue when verdicts[c.i] <> 'admitted';
      v_delivery := jsonb_populate_record(null::webhook_deliveries, c.v->'delivery');
      if c.v->'run' is null and c.v->'duplicate' is null then
        insert into webhook_deliveries values (v_delivery.*);
        outcomes[c.i] := '{"kind": "recorded"}';
        continue;
      end if;
      select * into v_held from webhook_deliveries
        where tenant_id = v_delivery.tenant_id and idempotency_key = v_delivery.idempotency_key;
      if found then
        outcomes[c.i] := jsonb_build_object('kind', 'taken', 'recorded', false,
          'holder', jsonb_build_object('id', v_held.id, 'run_id', v_held.run_id, 'status', v_held.status));
        if c.v->>'duplicate' is not null and v_held.status <> 'launch_error' then
          v_delivery.id := c.v->>'duplicate';
          v_delivery.status := 'duplicate';
          v_delivery.idempotency_key := 'row|' || v_delivery.id;
          v_delivery.run_id := v_held.run_id;
          v_delivery.reason := 'duplicate of ' || v_held.id;
          v_delivery.launched_at := null;
          v_delivery.attempts := 0;
          v_delivery.updated_at := v_delivery.created_at;
          insert into webhook_deliveries values (v_delivery.*);
          outcomes[c.i] := outcomes[c.i] || '{"recorded": true}';
        end if;
        continue;
      end if;
      if c.v->'run' is null then
        outcomes[c.i] := '{"kind": "free"}';
        continue;
      end if;
      if v_team_id is distinct from c.v->>'team' then
        v_team_id := c.v->>'team';
        select * into v_team from teams where id = v_team_id;
        v_gate := not found;
        if not v_gate then
          select * into v_org from orgs where id = v_team.org_id;
          v_gate := not found or v_org.status <> 'active' or v_team.status <> 'active' or v_team.max_concurrent_runs > 0
            or v_team.launch_rate_per_min > 0 or v_org.monthly_cost_cap_micro > 0 or v_org.monthly_run_quota > 0;
        end if;
      end if;
      if v_gate then
        outcomes[c.i] := '{"kind": "gate"}';
        continue;
      end if;
      v_run := jsonb_populate_record(null::runs, c.v->'run');
      v_run.org_id := v_org.id;
      insert into runs values (v_run.*);
      insert into webhook_deliveries values (v_delivery.*);
      launched_orgs := launched_orgs || v_org.id;
      launched_months := launched_months || (c.v->>'month');
      outcomes[c.i] := jsonb_build_object('kind', 'launched', 'orgId', v_org.id);
    end loop;
    -- Last: the tally rows stay locked until the commit, but few others want them.
    if cardinality(launched_orgs) > 0 then
      perform add_org_runs(launched_orgs, launched_months, 1);
    end if;
  exception when others then
    -- A call alone (or retried alone) reaches its caller with its own error.
    if n = 1 then
      raise;
    end if;
    retry := true;
  end;
  select jsonb_agg(case
      when verdicts[i] <> 'admitted' then jsonb_build_object('verdict', verdicts[i])
      when retry then jsonb_build_object('verdict', verdicts[i], 'retry', true)
      else jsonb_build_object('verdict', verdicts[i], 'outcome', outcomes[i]) end order by i)
    into answers from generate_series(1, n) as i;
end
$fn$;
