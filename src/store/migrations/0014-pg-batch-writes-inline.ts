import { sql, type Kysely, type Migration } from "kysely";
import { isPostgres } from "../compiled.js";

/**
 * PostgreSQL only: `deliver_webhook_calls` (0012) with its writes done in the procedure itself,
 * by the same rules, at less cost per call. Its inputs, answers, admissions and retry are
 * 0012's; what changed is how the admitted calls are written:
 *
 * - Each call's rows are built by assignment (`jsonb_populate_record` into a row variable,
 *   inserted as `values (v.*)`) rather than by `insert … select * from jsonb_populate_record`,
 *   a query of its own per row: about 7 µs a row less, measured on the runs table.
 * - The org's run tallies (0011) are counted once per batch, one upsert per org and month after
 *   the last write, not one per launch: a batch's launches all run on one connection, so they
 *   all counted on the same tally row, each update adding a version for the next to walk.
 * - A team and its org are read once per batch while consecutive calls name the same team
 *   (most batches hold one team's calls). The batch is one transaction, so its calls see the
 *   team and org as its first read of them saw them, as one statement's calls would.
 *
 * `launch_delivery` (0011) and `write_webhook_delivery` (0012) stay for the one-call path (a
 * batch's retried calls and the launch gate's callers); this procedure follows their rules:
 * `taken` with the holder's row when the key is held (and the duplicate's own row written unless
 * the holder is a launch_error row), `gate` when the team is unknown, its org is not active or
 * either sets a limit, otherwise the run and the row written and `launched`.
 *
 * A call is one of three kinds. With a `run`, a launch, as above. With a `duplicate` id and no
 * `run`, a replay's (a service sends it for a key it saw held, so that a replay does not build a
 * launch it will not need): the key checked and, when another row holds it (not a launch_error
 * row), the duplicate's own row written under that id, answering `taken` with `recorded`; a free
 * key writes nothing and answers `free`, and the caller sends the launch. With neither, a row.
 */
export const m0014PgBatchWritesInline: Migration = {
  async up(db: Kysely<any>) {
    if (!isPostgres(db)) return;
    await sql`
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
              outcomes[c.i] := jsonb_build_object('kind', 'taken', 'row', to_jsonb(v_held));
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
                v_gate := not found or v_org.status <> 'active' or v_team.max_concurrent_runs > 0
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
            outcomes[c.i] := jsonb_build_object('kind', 'launched', 'org_id', v_org.id);
          end loop;
          -- Last: the tally rows stay locked until the commit, but few others want them.
          if cardinality(launched_orgs) > 0 then
            insert into org_run_tallies (org_id, month, slot, runs)
              select org_id, month, pg_backend_pid() % 64, count(*)
                from unnest(launched_orgs, launched_months) as l(org_id, month)
                group by org_id, month order by org_id, month
              on conflict (org_id, month, slot) do update set runs = org_run_tallies.runs + excluded.runs;
          end if;
        exception when others then
          retry := true;
        end;
        select jsonb_agg(case
            when verdicts[i] <> 'admitted' then jsonb_build_object('verdict', verdicts[i])
            when retry then jsonb_build_object('verdict', verdicts[i], 'retry', true)
            else jsonb_build_object('verdict', verdicts[i], 'outcome', outcomes[i]) end order by i)
          into answers from generate_series(1, n) as i;
      end
      $fn$
    `.execute(db);
  },
};
