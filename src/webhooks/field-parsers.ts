import { invalid } from "../core/errors.js";
import { checkLine, checkText } from "../core/names.js";
import { nulField, nulMessage } from "../core/nul-field.js";

/**
 * Small parsers for untrusted JSON values. Each returns the normalised value or throws
 * invalid_request naming the dotted field path, so a caller always learns which field is wrong.
 */
export type Parser<T> = (value: unknown, field: string) => T;

export const VAR_KEY_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const MAX_VARS = 256;
export const MAX_VAR_VALUE_BYTES = 4096;
const MAX_LIST = 500;

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export const bool: Parser<boolean> = (v, field) => {
  if (typeof v !== "boolean") throw invalid(field, `${field} must be true or false`);
  return v;
};

export function text(max: number, pattern?: RegExp, hint?: string): Parser<string> {
  return (v, field) => {
    if (typeof v !== "string") throw invalid(field, `${field} must be a string`);
    const s = v.trim();
    if (s.length === 0 || s.length > max) throw invalid(field, `${field} must be 1-${max} characters`);
    checkLine(s, field);
    if (pattern && !pattern.test(s)) throw invalid(field, `${field} ${hint ?? `must match ${pattern.source}`}`);
    return s;
  };
}

export function number(opts: { min: number; max: number; exclusiveMin?: boolean; integer?: boolean }): Parser<number> {
  return (v, field) => {
    const ok =
      typeof v === "number" &&
      Number.isFinite(v) &&
      (!opts.integer || Number.isInteger(v)) &&
      (opts.exclusiveMin ? v > opts.min : v >= opts.min) &&
      v <= opts.max;
    if (!ok) {
      const kind = opts.integer ? "a whole number" : "a number";
      const low = opts.exclusiveMin ? `greater than ${opts.min}` : `at least ${opts.min}`;
      throw invalid(field, `${field} must be ${kind} ${low} and at most ${opts.max}`);
    }
    return v as number;
  };
}

export function oneOf<T extends string>(values: readonly T[]): Parser<T> {
  return (v, field) => {
    if (typeof v !== "string" || !(values as readonly string[]).includes(v)) {
      throw invalid(field, `${field} must be one of ${values.map((x) => JSON.stringify(x)).join(", ")}`);
    }
    return v as T;
  };
}

/** `null` (and, for strings, "") clears the value. */
export function nullable<T>(inner: Parser<T>): Parser<T | null> {
  return (v, field) => (v === null || v === "" ? null : inner(v, field));
}

/** A list without duplicates, order kept. */
export function list(item: Parser<string>, max = MAX_LIST): Parser<string[]> {
  return (v, field) => {
    if (!Array.isArray(v)) throw invalid(field, `${field} must be a list`);
    if (v.length > max) throw invalid(field, `${field} may hold at most ${max} entries`);
    const out: string[] = [];
    v.forEach((x, i) => {
      const s = item(x, `${field}.${i}`);
      if (!out.includes(s)) out.push(s);
    });
    return out;
  };
}

export function map(key: Parser<string>, value: Parser<string>, max = MAX_VARS): Parser<Record<string, string>> {
  return (v, field) => {
    if (!isObject(v)) throw invalid(field, `${field} must be an object`);
    const entries = Object.entries(v);
    if (entries.length > max) throw invalid(field, `${field} may hold at most ${max} keys`);
    const out: Record<string, string> = {};
    for (const [k, x] of entries) out[key(k, `${field}.${k}`)] = value(x, `${field}.${k}`);
    return out;
  };
}

const varKey = text(64, VAR_KEY_RE, "must match [A-Za-z_][A-Za-z0-9_]{0,63}");
const varValue: Parser<string> = (v, field) => {
  if (typeof v !== "string") throw invalid(field, `${field} must be a string`);
  if (Buffer.byteLength(v) > MAX_VAR_VALUE_BYTES) throw invalid(field, `${field} is larger than 4 KiB`);
  if (nulField({ [field]: v })) throw invalid(field, nulMessage(field));
  return checkText(v, field);
};

/** Run variables: at most 256 keys, env-style names, values up to 4 KiB. */
export const varMap: Parser<Record<string, string>> = (v, field) => {
  if (isObject(v)) for (const k of Object.keys(v)) if (!VAR_KEY_RE.test(k)) throw invalid(`${field}.${k}`, `${field}: bad var key ${JSON.stringify(k)}`);
  return map(varKey, varValue)(v, field);
};

/** A label, event name or login: printable, no surrounding blanks. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
export const word = text(200, /^[^\u0000-\u001f\u007f]+$/, "must not contain control characters");
