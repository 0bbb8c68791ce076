import { CompiledQuery, type Insertable, type Kysely } from "kysely";
import { dialect } from "./dialect.js";
import type { NewRowDefaults } from "./schema/new-row.js";
import { batchStatements } from "./sqlite/group-commit.js";

/**
 * A statement whose SQL text is fixed when the module loads, for the delivery path: no query
 * building or compiling per request. Written once with `?` placeholders (SQLite's), turned
 * into `$1…$n` for PostgreSQL. It runs through Kysely's executor, so it joins the caller's
 * transaction and SQLite's prepared-statement cache like any other query; inside a SQLite
 * shared commit it skips the executor (about 3 µs a statement) and runs the cached statement
 * itself, on the connection the batch holds. Only the delivery path's hot operations are written
 * this way, one per file named as its verb (store/delivery-path/, the ledgers' admissions and
 * commits in sqlite/ and postgres/); everything else goes through the query builder.
 */
export class Compiled<Row = unknown> {
  private readonly pgText: string;

  constructor(private readonly sqliteText: string) {
    let n = 0;
    this.pgText = sqliteText.replace(/\?/g, () => `$${++n}`);
  }

  /** The rows the statement returns (a select, or RETURNING). */
  async rows(db: Kysely<any>, params: readonly unknown[]): Promise<Row[]> {
    return (await this.execute(db, params)).rows;
  }

  /** Rows changed. */
  async run(db: Kysely<any>, params: readonly unknown[]): Promise<number> {
    return (await this.execute(db, params)).changes;
  }

  /** Inside a shared commit the cached statement runs directly, as Kysely's driver would run it. */
  private async execute(db: Kysely<any>, params: readonly unknown[]): Promise<{ rows: Row[]; changes: number }> {
    const prepare = batchStatements(db);
    if (prepare) {
      const stmt = prepare(this.sqliteText);
      const values = params as unknown[];
      return stmt.reader ? { rows: stmt.all(values) as Row[], changes: 0 } : { rows: [], changes: stmt.run(values).changes };
    }
    const result = await db.executeQuery<Row>(this.compile(db, params));
    return { rows: result.rows, changes: Number(result.numAffectedRows ?? 0n) };
  }

  private compile(db: Kysely<any>, params: readonly unknown[]): CompiledQuery<Row> {
    const text = dialect(db).numberedParameters ? this.pgText : this.sqliteText;
    return CompiledQuery.raw(text, params as unknown[]) as CompiledQuery<Row>;
  }
}

/**
 * `insert into <table> (<columns>) values (?, …)` writing every column of the table's
 * {@link NewRowDefaults}, in its key order; a column a row leaves out gets its default there.
 */
export function compiledInsert<Table>(table: string, columns: NewRowDefaults<Table>) {
  type Row = Insertable<Table>;
  const names = Object.keys(columns) as (keyof Row & string)[];
  const defaults = columns as unknown as Row;
  const statement = new Compiled(`insert into "${table}" (${names.map((c) => `"${c}"`).join(", ")}) values (${names.map(() => "?").join(", ")})`);
  return (db: Kysely<any>, row: Row) =>
    statement.run(
      db,
      names.map((c) => row[c] ?? defaults[c] ?? null),
    );
}

/** The launch path's last two dialect checks (store/admission.ts, store/parked-launches.ts) still import it from here. */
