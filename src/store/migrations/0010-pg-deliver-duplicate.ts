import { sql, type Kysely, type Migration } from "kysely";
import { isPostgres } from "../compiled.js";

/**
 * PostgreSQL only: `deliver_webhook_call` (0008) also writes a duplicate's own row. Given
 * `p_duplicate_id`, when `launch_delivery` answers `taken` and the holder is not a
 * launch_error row (the caller retries those), it inserts the replay's row in the same
 * transaction and answers `taken` with `recorded`: a duplicate takes one round trip, not two.
 * The row is the launch's row (`p_delivery`) as a non-launched one, as the intake builds it
 * (`duplicateOf` in intake/delivery-intake.ts): its own id and key, the holder's run, a
 * reason naming the holder.
 */
export const m0010PgDeliverDuplicate: Migration = {
  async up(db: Kysely<any>) {
    if (!isPostgres(db)) return;
    await sql`
      drop procedure if exists deliver_webhook_call(
        text, text, double precision, double precision, bigint, bigint, text, bigint, text, jsonb, jsonb, text, jsonb
      )
    `.execute(db);
    await sql`
      create procedure deliver_webhook_call(
        p_webhook text, p_org text, p_rate double precision, p_burst double precision,
        p_org_cap bigint, p_hook_cap bigint, p_month text, p_now bigint,
        p_team text, p_run jsonb, p_delivery jsonb, p_duplicate_id text,
        inout verdict text default null, inout outcome jsonb default null
      ) language plpgsql as $fn$
      begin
        perform set_config('synchronous_commit', 'off', true);
        verdict := admit_webhook_call(p_webhook, p_org, p_rate, p_burst, p_org_cap, p_hook_cap, p_month, p_now);
        commit;
        if verdict <> 'admitted' then
          return;
        end if;
        if p_run is null then
          insert into webhook_deliveries select * from jsonb_populate_record(null::webhook_deliveries, p_delivery);
          outcome := jsonb_build_object('kind', 'recorded');
          return;
        end if;
        outcome := launch_delivery(p_team, p_run, p_delivery, p_month, p_now);
        if outcome->>'kind' = 'taken' and p_duplicate_id is not null and outcome->'row'->>'status' <> 'launch_error' then
          insert into webhook_deliveries select * from jsonb_populate_record(null::webhook_deliveries, p_delivery || jsonb_build_object(
            'id', p_duplicate_id, 'status', 'duplicate', 'idempotency_key', 'row|' || p_duplicate_id,
            'run_id', outcome->'row'->'run_id', 'reason', 'duplicate of ' || (outcome->'row'->>'id'),
            'launched_at', null, 'attempts', 0, 'updated_at', p_delivery->'created_at'));
          outcome := outcome || jsonb_build_object('recorded', true);
        end if;
      end
      $fn$
    `.execute(db);
  },
};
