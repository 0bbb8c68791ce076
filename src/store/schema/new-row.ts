import type { Insertable } from "kysely";

/**
 * Every column of a table with the value a new row gets when it leaves the column out: the
 * column's default, or null (a column a row must name then fails its NOT NULL). The one place a
 * table's row defaults are written: the hand-written inserts and the code that builds new rows
 * take them from here. Typed over every column, so a column added to the table and not here
 * fails to compile, by name.
 */
export type NewRowDefaults<Table> = { readonly [K in keyof Required<Insertable<Table>>]: Insertable<Table>[K] | null };
