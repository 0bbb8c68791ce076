import { sql, type Kysely, type Migration } from "kysely";

/**
 * Two of the runs indexes only ever serve some rows, so only those rows enter them: the lease
 * sweep reads running runs, and a closed pull request's stop matches a parent subject, which
 * only comment-launched runs carry. A queued run from a pull request (most launches) then
 * writes two index entries fewer, on both stores. Queries name `status = 'running'` as a
 * literal, so the planner can prove the partial index applies.
 */
export const m0009RunsPartialIndexes: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.dropIndex("runs_lease").execute();
    await sql`create index runs_lease on runs (lease_expires_at) where status = 'running'`.execute(db);
    await db.schema.dropIndex("runs_parent_subject").execute();
    await sql`create index runs_parent_subject on runs (team_id, parent_subject_id) where parent_subject_id is not null`.execute(db);
  },
};
