import { sql, type Kysely, type Migration } from "kysely";
import { isPostgres } from "../compiled.js";

/**
 * PostgreSQL only: a webhook delivery's admission and its write in one round trip, as two
 * transactions. `deliver_webhook_call` first admits the call (0005's `admit_webhook_call`) and
 * commits that without waiting for its WAL flush, so the webhook's bucket and counter rows are
 * released at once, as before. When the call is admitted it then, in a second transaction that
 * commits synchronously (its flush covers the admission's WAL too), either inserts the
 * delivery's row (`p_run` null: filtered, invalid and other non-launching outcomes) or runs
 * 0007's `launch_delivery`. `verdict` is the admission's answer; `outcome` is
 * `{"kind":"recorded"}` or `launch_delivery`'s answer, null when the call was refused.
 * A procedure, because only a procedure may commit between the two; it must be called
 * outside a transaction block.
 */
export const m0008PgDeliverWebhookCall: Migration = {
  async up(db: Kysely<any>) {
    if (!isPostgres(db)) return;
    await sql`
      create or replace procedure deliver_webhook_call(
        p_webhook text, p_org text, p_rate double precision, p_burst double precision,
        p_org_cap bigint, p_hook_cap bigint, p_month text, p_now bigint,
        p_team text, p_run jsonb, p_delivery jsonb,
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
        else
          outcome := launch_delivery(p_team, p_run, p_delivery, p_month, p_now);
        end if;
      end
      $fn$
    `.execute(db);
  },
};
