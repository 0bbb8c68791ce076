/** A custom event as emitted: its name and its JSON payload. */
export interface CustomEvent {
  event: string;
  payload: Record<string, unknown>;
}

/** The value at a dotted path of the payload (`a.b.0`), or undefined. */
export function valueAt(payload: unknown, path: string): unknown {
  let at: unknown = payload;
  for (const part of path.split(".")) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** Whether every filter entry (payload path → scalar) equals the payload's value there. */
export function matchesFilter(filter: Record<string, string | number | boolean>, payload: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([path, expected]) => valueAt(payload, path) === expected);
}

const PLACEHOLDER = /\{\{\s*(event|payload(?:\.[A-Za-z0-9_-]+)+)\s*\}\}/g;

/**
 * Run variables from a subscription's template: `{{event}}` and `{{payload.path}}` replaced by
 * the event's values (scalars as text, objects as JSON, a missing path as empty text).
 */
export function fillVars(template: Record<string, string>, e: CustomEvent): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(template)) {
    out[key] = value.replace(PLACEHOLDER, (_m, ref: string) => {
      const v = ref === "event" ? e.event : valueAt(e.payload, ref.slice("payload.".length));
      return v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
    });
  }
  return out;
}
