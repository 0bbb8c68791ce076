import { sql, type Kysely, type Migration } from "kysely";
import { dialect } from "../dialect.js";

/** PostgreSQL only: a delivery's one-call launch is a batch of one of `deliver_webhook_calls` now. */
export const m0018DropLaunchDelivery: Migration = {
  async up(db: Kysely<any>) {
    if (!dialect(db).storedRoutines) return;
    await sql`drop function if exists launch_delivery(text, jsonb, jsonb, text, bigint)`.execute(db);
  },
};
