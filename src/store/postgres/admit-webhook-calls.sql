-- One webhook's call admissions of one month, in order: the token bucket, then the org's and the
-- webhook's monthly call quotas, each row locked, read and written once. `p_calls` holds
-- admit_webhook_call's argument lists; the answer is one verdict per call. SQLite's twin:
-- `admitOnSqlite` in store/sqlite/admit-webhook-call.ts; store/delivery-ledger.test.ts holds both.
create or replace function admit_webhook_calls(p_calls jsonb) returns text[] language plpgsql as $fn$
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
$fn$;
