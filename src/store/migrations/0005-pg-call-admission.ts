import { sql, type Kysely, type Migration } from "kysely";
import { isPostgres } from "../compiled.js";

/**
 * PostgreSQL only: the webhook call admission as one server-side function, so a delivery takes
 * its bucket token and counts its call in a single round trip. The rows it locks (the
 * webhook's bucket and monthly counters) are every delivery's of that webhook: held across
 * several round trips they made deliveries queue. Same rules as `admitWebhookCall`'s SQLite
 * path (`store/intake.ts`), and the same store tests run against both.
 */
export const m0005PgCallAdmission: Migration = {
  async up(db: Kysely<any>) {
    if (!isPostgres(db)) return;
    await sql`
      create or replace function admit_webhook_call(
        p_webhook text, p_org text, p_rate double precision, p_burst double precision,
        p_org_cap bigint, p_hook_cap bigint, p_month text, p_now bigint
      ) returns text language plpgsql as $fn$
      declare
        b_tokens double precision;
        b_updated bigint;
        avail double precision;
        org_scope text := 'org:' || p_org;
        hook_scope text := 'webhook:' || p_webhook;
        first_scope text;
        second_scope text;
        first_calls bigint;
        second_calls bigint;
        org_calls bigint;
        hook_calls bigint;
      begin
        -- A new bucket starts full; an existing one is locked and read.
        insert into webhook_buckets (webhook_id, tokens, updated_at) values (p_webhook, p_burst, p_now)
          on conflict (webhook_id) do update set tokens = webhook_buckets.tokens
          returning tokens, updated_at into b_tokens, b_updated;
        avail := least(p_burst, b_tokens + greatest(0, p_now - b_updated) * (p_rate / 1000.0));
        if avail < 1 then
          if p_rate <= 0 then return 'rate_limited:3600'; end if;
          return 'rate_limited:' || greatest(1, ceil((1 - avail) / (p_rate / 1000.0) / 1000.0 - 1e-9))::bigint;
        end if;
        update webhook_buckets set tokens = avail - 1, updated_at = p_now where webhook_id = p_webhook;

        -- Both counters, locked in one order everywhere.
        if org_scope < hook_scope then first_scope := org_scope; second_scope := hook_scope;
        else first_scope := hook_scope; second_scope := org_scope; end if;
        insert into webhook_call_counters (scope, month, calls) values (first_scope, p_month, 0)
          on conflict (scope, month) do update set calls = webhook_call_counters.calls returning calls into first_calls;
        insert into webhook_call_counters (scope, month, calls) values (second_scope, p_month, 0)
          on conflict (scope, month) do update set calls = webhook_call_counters.calls returning calls into second_calls;
        if first_scope = org_scope then org_calls := first_calls; hook_calls := second_calls;
        else org_calls := second_calls; hook_calls := first_calls; end if;
        if p_org_cap > 0 and org_calls >= p_org_cap then return 'quota_exceeded:org'; end if;
        if p_hook_cap > 0 and hook_calls >= p_hook_cap then return 'quota_exceeded:webhook'; end if;
        update webhook_call_counters set calls = calls + 1 where month = p_month and scope in (org_scope, hook_scope);
        return 'admitted';
      end
      $fn$
    `.execute(db);
  },
};
