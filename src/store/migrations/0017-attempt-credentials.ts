import type { Kysely, Migration } from "kysely";

/**
 * Which stored key or secret each execution attempt was handed (metadata only, never a value):
 * the run view shows it and the credential ledger charges the attempt's usage to it. Runs again
 * without harm (install-functions.test.ts replays the migrations from 0016 on).
 */
export const m0017AttemptCredentials: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable("attempt_credentials")
      .ifNotExists()
      .addColumn("run_id", "text", (c) => c.notNull())
      .addColumn("attempt", "integer", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("credential_id", "text", (c) => c.notNull())
      .addColumn("credential_name", "text", (c) => c.notNull())
      .addColumn("last4", "text", (c) => c.notNull())
      .addColumn("fingerprint", "text", (c) => c.notNull())
      .addColumn("tier", "text")
      .addColumn("source", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("attempt_credentials_pk", ["run_id", "attempt", "kind", "name"])
      .execute();
  },
};
