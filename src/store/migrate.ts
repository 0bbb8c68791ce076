import { Migrator, type Kysely, type Migration, type MigrationProvider } from "kysely";
import { dialect } from "./dialect.js";
import { migrations } from "./migrations/index.js";
import { installPgFunctions } from "./postgres/install-functions.js";

/**
 * Applies every pending migration, in name order, under Kysely's migration lock. `schema`
 * (PostgreSQL) names where the migration tables live: left to the search path, Kysely's
 * existence check would find another schema's (`public`'s) tables and skip creating its own.
 * PostgreSQL's functions are then installed from their current source (store/postgres/).
 */
export async function migrateToLatest(db: Kysely<any>, schema?: string): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrations as Record<string, Migration> };
  // A migration that lands after a later-numbered one was applied (two branches merged) still runs.
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`migration ${failed} failed`, { cause: error });
  }
  if (dialect(db).storedRoutines) await installPgFunctions(db);
}
