import { readFile } from "node:fs/promises";
import { sql, type Kysely } from "kysely";

/**
 * PostgreSQL's functions and procedures, each the current source in `<name>.sql` beside this
 * file, in install order: a SQL function's body is checked against those before it.
 */
export const PG_FUNCTIONS = ["add_org_runs", "admit_webhook_calls", "admit_webhook_call", "deliver_webhook_calls"] as const;

export type PgFunctionName = (typeof PG_FUNCTIONS)[number];

/** The text of `name`'s source file (in dist/ the build copies it beside the compiled module). */
export function pgFunctionSource(name: PgFunctionName): Promise<string> {
  return readFile(new URL(`./${name.replaceAll("_", "-")}.sql`, import.meta.url), "utf8");
}

/**
 * Installs every function's current source into the first schema of the search path, after the
 * migrations and in one transaction. A changed signature or return type needs a migration that
 * drops the old one first, as `create or replace` keeps the old one beside it or refuses.
 */
export async function installPgFunctions(db: Kysely<any>): Promise<void> {
  const sources = await Promise.all(PG_FUNCTIONS.map(pgFunctionSource));
  // Every start, not a migration: the files stay the live text; `create or replace` keeps the oids other processes prepared calls on.
  await db.transaction().execute(async (tx) => {
    // Replicas starting together would otherwise update the same catalog rows: "tuple concurrently updated".
    await sql`select pg_advisory_xact_lock(hashtext('install functions in ' || current_schema()))`.execute(tx);
    for (const source of sources) await sql.raw(source).execute(tx);
  });
}
