/**
 * Request headers as Node hands them over: lower-cased names, a string, or a string[] when a
 * header is repeated. Tests may pass any spelling; lookups are case-insensitive.
 */
export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface FoundHeader {
  /** The header name as listed by the caller (the spelling that matched). */
  name: string;
  value: string;
}

/** The value of one header; a repeated header yields its first value. */
export function readHeader(headers: HeaderBag, name: string): string | undefined {
  const wanted = name.toLowerCase();
  let raw = headers[wanted];
  if (raw === undefined) {
    for (const key of Object.keys(headers)) {
      if (key.toLowerCase() === wanted) {
        raw = headers[key];
        break;
      }
    }
  }
  if (typeof raw === "string") return raw;
  if (Array.isArray(raw)) {
    const first: unknown = raw[0];
    return typeof first === "string" ? first : undefined;
  }
  return undefined;
}

/**
 * The first of `names` that is present, even when its value is empty: for signatures the
 * first header present is the one checked, so a bad primary is never rescued by a fallback.
 */
export function firstHeader(headers: HeaderBag, names: readonly string[]): FoundHeader | undefined {
  for (const name of names) {
    const value = readHeader(headers, name);
    if (value !== undefined) return { name, value };
  }
  return undefined;
}

/** The first non-empty value among `names` (event names, delivery ids). */
export function firstHeaderValue(headers: HeaderBag, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = readHeader(headers, name)?.trim();
    if (value) return value;
  }
  return undefined;
}

/** `application/x-www-form-urlencoded`, parameters such as charset ignored. */
export function isFormEncoded(headers: HeaderBag): boolean {
  const type = readHeader(headers, "content-type") ?? "";
  return type.split(";")[0]?.trim().toLowerCase() === "application/x-www-form-urlencoded";
}
