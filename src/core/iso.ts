/** Epoch milliseconds as the API shows them: ISO 8601 in UTC; null stays null. */
export function iso(ms: number): string;
export function iso(ms: number | null | undefined): string | null;
export function iso(ms: number | null | undefined): string | null {
  return ms == null ? null : new Date(Number(ms)).toISOString();
}
