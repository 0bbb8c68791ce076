-- The one write of a month's run count on PostgreSQL (its SQLite twin is the upsert in
-- store/delivery-path/add-org-runs.ts): each (org, month) pair listed adds p_delta runs, -1 a
-- launch's hand-back. Called by the gate's transaction (admission/launcher.ts, through
-- addOrgRuns) and by deliver_webhook_calls for its batch's launches. The count lives in
-- org_run_tallies, a row per (org, month, slot), the slot picked by the backend's process id,
-- so concurrent connections seldom write the same row; the month's count is the sum of its slots
-- (store/usage.ts, findOrgRuns). Rows are written in (org, month) order, so two batches never
-- wait on each other's rows crosswise.
-- PL/pgSQL, not SQL: its statement's plan is kept for the session (a SQL function's is made anew
-- on every call before PostgreSQL 18).
create or replace function add_org_runs(p_org_ids text[], p_months text[], p_delta bigint) returns void
language plpgsql as $fn$
begin
  insert into org_run_tallies (org_id, month, slot, runs)
    select org_id, month, pg_backend_pid() % 64, count(*) * p_delta
      from unnest(p_org_ids, p_months) as l(org_id, month)
      group by org_id, month order by org_id, month
    on conflict (org_id, month, slot) do update set runs = org_run_tallies.runs + excluded.runs;
end
$fn$;
