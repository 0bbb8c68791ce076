import { sql, type Kysely, type Migration } from "kysely";
import { isPostgres } from "../compiled.js";

/**
 * PostgreSQL only: the writes of a launch that no limit needs to lock for (the run, the row
 * the caller records with it, and the org's run counter) as one function call, so such a
 * launch costs one round trip instead of a transaction of five. The rows come as JSON with
 * every column named (the launcher writes all of them); a unique violation on the recorded
 * row fails the whole call, as the transaction would.
 */
export const m0006PgLaunchRun: Migration = {
  async up(db: Kysely<any>) {
    if (!isPostgres(db)) return;
    await sql`
      create or replace function launch_run(p_run jsonb, p_delivery jsonb, p_month text, p_now bigint)
      returns void language plpgsql as $fn$
      begin
        insert into runs select * from jsonb_populate_record(null::runs, p_run);
        if p_delivery is not null then
          insert into webhook_deliveries select * from jsonb_populate_record(null::webhook_deliveries, p_delivery);
        end if;
        -- Last, as in the gate's transaction: the org's counter is the row launches share.
        insert into org_usage (org_id, month, runs, cost_micro, input_tokens, output_tokens, aggregate_tokens, updated_at)
          values (p_run->>'org_id', p_month, 1, 0, 0, 0, 0, p_now)
          on conflict (org_id, month) do update set runs = org_usage.runs + 1, updated_at = p_now;
      end
      $fn$
    `.execute(db);
  },
};
