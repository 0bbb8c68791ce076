import { randomBytes } from "node:crypto";
import { Migrator, type Migration } from "kysely";
import pg from "pg";
import { migrations } from "../store/migrations/index.js";
import { openStore, type Store } from "../store/store.js";

/** A store migrated up to `last` only, so a later migration can be run over rows written before it. */
export async function storeUpTo(kind: "sqlite" | "postgres", last: string): Promise<{ store: Store; migrator: Migrator; close: () => Promise<void> }> {
  let schema: string | undefined;
  if (kind === "postgres") {
    schema = `t_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: process.env.SERVICE_TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
  }
  const store = await openStore({ databaseUrl: kind === "postgres" ? process.env.SERVICE_TEST_DATABASE_URL! : "", pgSchema: schema, migrate: false });
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrations as Record<string, Migration> },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error } = await migrator.migrateTo(last);
  if (error) throw error;
  const close = async () => {
    await store.close();
    if (!schema) return;
    const admin = new pg.Client({ connectionString: process.env.SERVICE_TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  };
  return { store, migrator, close };
}
