import { sql, type Kysely, type Migration } from "kysely";
import { isPostgres } from "../compiled.js";

/**
 * PostgreSQL only: webhook deliveries written in batches, one round trip and one WAL flush for
 * every delivery a process has waiting (`PgDeliveryBatches` in store/pg-delivery-batches.ts).
 * `deliver_webhook_calls` replaces 0010's `deliver_webhook_call`, which took one call.
 *
 * `p_calls` is a JSON array; each call has `delivery` (the row), and may have `admission`
 * (`admit_webhook_call`'s arguments in order), `team`, `run`, `month` (a launch, as 0007's
 * `launch_delivery` takes it) and `duplicate` (0010's duplicate row id). `answers` holds one
 * `{verdict, outcome}` per call, in `p_calls`' order: the verdict is the admission's answer
 * ('admitted' for a call without one), the outcome `write_webhook_delivery`'s, null for a
 * refused call.
 *
 * 1. The admissions, grouped by webhook and month: `admit_webhook_calls` decides a group's calls
 *    in order, by 0005's rules, reading and writing the webhook's bucket and counter rows once
 *    (written per call, a batch's updates made each row a growing chain of versions to walk).
 *    Each group is one transaction that commits without waiting for its WAL flush, as 0008's
 *    admission did, so those rows are never held locked through a flush, nor together with
 *    another webhook's: a group locks its bucket, then its org's counter, then its own, the
 *    one order every admission takes. 0005's `admit_webhook_call` becomes the group of one.
 * 2. The admitted calls' writes, in one transaction that commits synchronously: its flush
 *    covers the admissions' WAL too. Calls are written in idempotency key order, so two
 *    batches racing for the same keys take them in one order. When any write fails (a
 *    concurrent delivery won a key, a deadlock, a row the table refuses), every write of the
 *    batch is rolled back and each admitted call answers `{verdict, retry: true}`: the caller
 *    writes those one by one, without their admissions, which stand.
 *
 * An error in step 1 fails the whole call: admissions committed before it stand and nothing
 * is written, as when 0008's procedure failed between its two transactions.
 */
export const m0012PgDeliverInBatches: Migration = {
  async up(db: Kysely<any>) {
    if (!isPostgres(db)) return;
    // 0010's second transaction as a function: the row, or the launch and a duplicate's row.
    await sql`
      create function write_webhook_delivery(
        p_team text, p_run jsonb, p_delivery jsonb, p_month text, p_duplicate_id text
      ) returns jsonb language plpgsql as $fn$
      declare
        v_outcome jsonb;
      begin
        if p_run is null then
          insert into webhook_deliveries select * from jsonb_populate_record(null::webhook_deliveries, p_delivery);
          return jsonb_build_object('kind', 'recorded');
        end if;
        v_outcome := launch_delivery(p_team, p_run, p_delivery, p_month, (p_run->>'created_at')::bigint);
        if v_outcome->>'kind' = 'taken' and p_duplicate_id is not null and v_outcome->'row'->>'status' <> 'launch_error' then
          insert into webhook_deliveries select * from jsonb_populate_record(null::webhook_deliveries, p_delivery || jsonb_build_object(
            'id', p_duplicate_id, 'status', 'duplicate', 'idempotency_key', 'row|' || p_duplicate_id,
            'run_id', v_outcome->'row'->'run_id', 'reason', 'duplicate of ' || (v_outcome->'row'->>'id'),
            'launched_at', null, 'attempts', 0, 'updated_at', p_delivery->'created_at'));
          v_outcome := v_outcome || jsonb_build_object('recorded', true);
        end if;
        return v_outcome;
      end
      $fn$
    `.execute(db);
    // One webhook's admissions of a month at once: its rows locked, read and written once.
    await sql`
      create function admit_webhook_calls(p_calls jsonb) returns text[] language plpgsql as $fn$
      declare
        v_first jsonb := p_calls->0;
        v_hook text := v_first->>0;
        v_month text := v_first->>6;
        v_org_scope text := 'org:' || (v_first->>1);
        v_hook_scope text := 'webhook:' || v_hook;
        verdicts text[] := '{}';
        c jsonb;
        rate double precision;
        burst double precision;
        v_now bigint;
        avail double precision;
        b_tokens double precision;
        b_updated bigint;
        org_calls bigint;
        hook_calls bigint;
        taken int := 0;
        counted int := 0;
      begin
        -- A new bucket starts full; an existing one is locked and read.
        insert into webhook_buckets (webhook_id, tokens, updated_at) values (v_hook, (v_first->>3)::double precision, (v_first->>7)::bigint)
          on conflict (webhook_id) do update set tokens = webhook_buckets.tokens
          returning tokens, updated_at into b_tokens, b_updated;
        for c in select value from jsonb_array_elements(p_calls) loop
          rate := (c->>2)::double precision;
          burst := (c->>3)::double precision;
          v_now := (c->>7)::bigint;
          avail := least(burst, b_tokens + greatest(0, v_now - b_updated) * (rate / 1000.0));
          if avail < 1 then
            verdicts := verdicts || case when rate <= 0 then 'rate_limited:3600'
              else 'rate_limited:' || greatest(1, ceil((1 - avail) / (rate / 1000.0) / 1000.0 - 1e-9))::bigint end;
            continue;
          end if;
          b_tokens := avail - 1;
          b_updated := v_now;
          taken := taken + 1;
          if org_calls is null then
            -- Both counters, locked once a call passes the bucket, the org's first.
            insert into webhook_call_counters (scope, month, calls) values (v_org_scope, v_month, 0)
              on conflict (scope, month) do update set calls = webhook_call_counters.calls returning calls into org_calls;
            insert into webhook_call_counters (scope, month, calls) values (v_hook_scope, v_month, 0)
              on conflict (scope, month) do update set calls = webhook_call_counters.calls returning calls into hook_calls;
          end if;
          if (c->>4)::bigint > 0 and org_calls >= (c->>4)::bigint then
            verdicts := verdicts || 'quota_exceeded:org'::text;
          elsif (c->>5)::bigint > 0 and hook_calls >= (c->>5)::bigint then
            verdicts := verdicts || 'quota_exceeded:webhook'::text;
          else
            org_calls := org_calls + 1;
            hook_calls := hook_calls + 1;
            counted := counted + 1;
            verdicts := verdicts || 'admitted'::text;
          end if;
        end loop;
        if taken > 0 then
          update webhook_buckets set tokens = b_tokens, updated_at = b_updated where webhook_id = v_hook;
        end if;
        if counted > 0 then
          update webhook_call_counters set calls = calls + counted where month = v_month and scope in (v_org_scope, v_hook_scope);
        end if;
        return verdicts;
      end
      $fn$
    `.execute(db);
    // The one-call admission (0005's) is the batch of one: one copy of the rules.
    await sql`
      create or replace function admit_webhook_call(
        p_webhook text, p_org text, p_rate double precision, p_burst double precision,
        p_org_cap bigint, p_hook_cap bigint, p_month text, p_now bigint
      ) returns text language sql as $fn$
        select (admit_webhook_calls(jsonb_build_array(jsonb_build_array(p_webhook, p_org, p_rate, p_burst, p_org_cap, p_hook_cap, p_month, p_now))))[1]
      $fn$
    `.execute(db);
    await sql`
      create procedure deliver_webhook_calls(p_calls jsonb, inout answers jsonb default null)
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
            outcomes[c.i] := write_webhook_delivery(c.v->>'team', c.v->'run', c.v->'delivery', c.v->>'month', c.v->>'duplicate');
          end loop;
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
    await sql`
      drop procedure deliver_webhook_call(
        text, text, double precision, double precision, bigint, bigint, text, bigint, text, jsonb, jsonb, text, text, jsonb
      )
    `.execute(db);
  },
};
