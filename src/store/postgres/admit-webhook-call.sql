-- One call's admission is the batch of one, so the rules are written once (admit-webhook-calls.sql).
create or replace function admit_webhook_call(
  p_webhook text, p_org text, p_rate double precision, p_burst double precision,
  p_org_cap bigint, p_hook_cap bigint, p_month text, p_now bigint
) returns text language sql as $fn$
  select (admit_webhook_calls(jsonb_build_array(jsonb_build_array(p_webhook, p_org, p_rate, p_burst, p_org_cap, p_hook_cap, p_month, p_now))))[1]
$fn$;
