import { sql } from "kysely";
import type { Db } from "./db.js";

/**
 * Counts one failed sign-in for the address, in one statement: a window past its end starts
 * again at `now` with this failure. Returns the window as it stands after the count.
 */
export async function countAddressFailure(db: Db, address: string, now: number, windowMs: number): Promise<{ windowStart: number; failures: number }> {
  const expired = sql<boolean>`sign_in_address_failures.window_start + ${windowMs} <= ${now}`;
  const row = await db
    .insertInto("sign_in_address_failures")
    .values({ address, window_start: now, failures: 1 })
    .onConflict((oc) =>
      oc.column("address").doUpdateSet({
        failures: sql`case when ${expired} then 1 else sign_in_address_failures.failures + 1 end`,
        window_start: sql`case when ${expired} then ${now} else sign_in_address_failures.window_start end`,
      }),
    )
    .returning(["window_start", "failures"])
    .executeTakeFirstOrThrow();
  return { windowStart: Number(row.window_start), failures: Number(row.failures) };
}

/** Takes back a failure counted ahead of the check, if its window is still the one it was counted in. */
export async function forgiveAddressFailure(db: Db, address: string, windowStart: number): Promise<void> {
  await db
    .updateTable("sign_in_address_failures")
    .set({ failures: sql`failures - 1` })
    .where("address", "=", address)
    .where("window_start", "=", windowStart)
    .where("failures", ">", 0)
    .execute();
}

/** The address's current window, if it has one that has not ended. */
export async function findAddressFailures(
  db: Db,
  address: string,
  now: number,
  windowMs: number,
): Promise<{ windowStart: number; failures: number } | undefined> {
  const row = await db
    .selectFrom("sign_in_address_failures")
    .select(["window_start", "failures"])
    .where("address", "=", address)
    .where("window_start", ">", now - windowMs)
    .executeTakeFirst();
  return row && { windowStart: Number(row.window_start), failures: Number(row.failures) };
}

/** Drops windows that ended before `before`; returns how many. */
export async function deleteEndedAddressWindows(db: Db, before: number, limit = 1000): Promise<number> {
  const r = await db
    .deleteFrom("sign_in_address_failures")
    .where("address", "in", (eb) => eb.selectFrom("sign_in_address_failures").select("address").where("window_start", "<", before).limit(limit))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
