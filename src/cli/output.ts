import { printable } from "../core/names.js";
export interface Column<T> {
  header: string;
  get: (row: T) => unknown;
}

/** Control, bidi and other format characters from the API are shown as `?`, so no value can steer the terminal or read reversed. */
export function cell(v: unknown): string {
  if (v === null || v === undefined) return "-";
  const flat = Array.isArray(v) && v.every((x) => typeof x !== "object");
  const text = flat ? v.join(",") : typeof v === "object" ? JSON.stringify(v) : String(v);
  return printable(text);
}

export function table<T>(rows: T[], columns: Column<T>[]): string {
  const cells = rows.map((r) => columns.map((c) => cell(c.get(r))));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join("\n");
}

/** Two columns, field and value, for one object. */
export function fields(obj: Record<string, unknown>, keys: string[]): string {
  return table(
    keys.map((k) => [k, obj[k]] as const),
    [
      { header: "FIELD", get: (r) => r[0] },
      { header: "VALUE", get: (r) => r[1] },
    ],
  );
}

/** Where a command writes: a table for people, or the API's JSON with `--json`. */
export class Output {
  constructor(
    readonly json: boolean,
    private readonly write: (text: string) => void = (t) => process.stdout.write(t),
  ) {}

  show<T>(data: T, human: (data: T) => string): void {
    this.write(`${this.json ? JSON.stringify(data, null, 2) : human(data)}\n`);
  }

  /** One line: NDJSON with `--json`, else the text. */
  line(data: unknown, text: string): void {
    this.write(`${this.json ? JSON.stringify(data) : text}\n`);
  }
}
