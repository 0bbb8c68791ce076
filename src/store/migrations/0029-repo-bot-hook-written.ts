import { type Kysely, type Migration, sql } from "kysely";

/** When a provisioned repository's hook secret was last written: deliveries refused before it are not the hook's. */
export const m0029RepoBotHookWritten: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable("repo_bots").addColumn("hook_written_at", "bigint").execute();
    // A hook committed before this column was last written no later than its row was.
    await sql`update repo_bots set hook_written_at = updated_at where hook_id is not null`.execute(db);
  },
};
