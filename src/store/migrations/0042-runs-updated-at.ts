import type { Kysely, Migration } from "kysely";

/** Runs by when they last changed: the forge status reporter follows runs as they change. */
export const m0042RunsUpdatedAt: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex("runs_updated").on("runs").column("updated_at").execute();
  },
};
