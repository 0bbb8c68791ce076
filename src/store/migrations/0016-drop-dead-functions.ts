import { sql, type Kysely, type Migration } from "kysely";
import { dialect } from "../dialect.js";

/** PostgreSQL only: functions earlier migrations installed that nothing calls any more. */
export const m0016DropDeadFunctions: Migration = {
  async up(db: Kysely<any>) {
    if (!dialect(db).storedRoutines) return;
    await sql`
      drop routine if exists
        write_webhook_delivery(text, jsonb, jsonb, text, text),
        launch_run(jsonb, jsonb, text, bigint),
        deliver_webhook_call(text, text, double precision, double precision, bigint, bigint, text, bigint, text, jsonb, jsonb, text, jsonb),
        deliver_webhook_call(text, text, double precision, double precision, bigint, bigint, text, bigint, text, jsonb, jsonb, text, text, jsonb)
    `.execute(db);
  },
};
