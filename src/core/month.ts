/** Usage months are UTC calendar months, written YYYY-MM. */
export function monthOf(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, "0")}`;
}

/** First instant of the UTC month after the one holding `ms`. */
export function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

const MONTH_RE = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** Parses YYYY-MM strictly; anything else is undefined, never "this month". */
export function parseMonth(raw: string): string | undefined {
  return MONTH_RE.test(raw) ? raw : undefined;
}
