/**
 * Small permissive readers for outside JSON: each names one field and answers undefined for
 * anything missing or of the wrong type, because self-hosted forges differ by version.
 */
export type JsonObject = Record<string, unknown>;

export function asObject(value: unknown): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

/** The value at a path of object keys. */
export function at(root: unknown, ...path: string[]): unknown {
  let cur: unknown = root;
  for (const key of path) {
    const o = asObject(cur);
    if (!o || !Object.hasOwn(o, key)) return undefined;
    cur = o[key];
  }
  return cur;
}

export function strAt(root: unknown, ...path: string[]): string | undefined {
  const v = at(root, ...path);
  return typeof v === "string" ? v : undefined;
}

/** A non-empty string after trimming. */
export function textAt(root: unknown, ...path: string[]): string | undefined {
  const v = strAt(root, ...path)?.trim();
  return v ? v : undefined;
}

/** A finite integer, or an integer written as a decimal string. */
export function intAt(root: unknown, ...path: string[]): number | undefined {
  const v = at(root, ...path);
  if (typeof v === "number") return Number.isSafeInteger(v) ? v : undefined;
  if (typeof v === "string" && /^-?\d{1,15}$/.test(v)) return Number(v);
  return undefined;
}

/** An id, numeric or string, as a string. */
export function idAt(root: unknown, ...path: string[]): string | undefined {
  const n = intAt(root, ...path);
  return n !== undefined ? String(n) : textAt(root, ...path);
}

export function boolAt(root: unknown, ...path: string[]): boolean | undefined {
  const v = at(root, ...path);
  return typeof v === "boolean" ? v : undefined;
}

export function arrayAt(root: unknown, ...path: string[]): readonly unknown[] | undefined {
  const v = at(root, ...path);
  return Array.isArray(v) ? v : undefined;
}

/** Names from a list of strings or of objects carrying `key` (labels, reviewers). */
export function namesAt(root: unknown, key: string, ...path: string[]): string[] | undefined {
  const list = arrayAt(root, ...path);
  if (!list) return undefined;
  const names: string[] = [];
  for (const item of list) {
    const name = typeof item === "string" ? item : strAt(item, key);
    if (name) names.push(name);
  }
  return names;
}

/** JSON.parse that answers undefined for bad JSON or anything but an object. */
export function parseJsonObject(text: string): JsonObject | undefined {
  try {
    return asObject(JSON.parse(text));
  } catch {
    return undefined;
  }
}
