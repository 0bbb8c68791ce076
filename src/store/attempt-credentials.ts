import type { Insertable, Selectable } from "kysely";
import type { AttemptCredentialsTable } from "./schema/credentials.js";
import type { Db } from "./db.js";

export type AttemptCredentialRow = Selectable<AttemptCredentialsTable>;

/** Records what an attempt is handed, replacing an earlier record of the same attempt. */
export async function recordAttemptCredentials(db: Db, runId: string, attempt: number, rows: Insertable<AttemptCredentialsTable>[]): Promise<void> {
  await db.deleteFrom("attempt_credentials").where("run_id", "=", runId).where("attempt", "=", attempt).execute();
  if (rows.length > 0) await db.insertInto("attempt_credentials").values(rows).execute();
}

/** The keys one attempt was handed: provider, fingerprint and tier, for the ledger. */
export function listAttemptKeys(db: Db, runId: string, attempt: number) {
  return db
    .selectFrom("attempt_credentials")
    .select(["name as provider", "fingerprint", "tier"])
    .where("run_id", "=", runId)
    .where("attempt", "=", attempt)
    .where("kind", "=", "key")
    .orderBy("name")
    .execute();
}

/** Everything the run's attempts were handed, for its view. */
export function listRunCredentials(db: Db, runId: string): Promise<AttemptCredentialRow[]> {
  return db.selectFrom("attempt_credentials").selectAll().where("run_id", "=", runId).orderBy("attempt").orderBy("kind").orderBy("name").execute();
}

export async function deleteRunCredentials(db: Db, runId: string): Promise<void> {
  await db.deleteFrom("attempt_credentials").where("run_id", "=", runId).execute();
}
