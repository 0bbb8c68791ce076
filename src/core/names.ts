import { invalid } from "./errors.js";

/** Longest name, in characters (code points), after trimming. */
export const NAME_MAX = 200;

/**
 * C0 and C1 controls (NUL, CR, LF, ESC and so ANSI escapes), the line and paragraph separators,
 * and the bidi marks, embeddings, overrides and isolates that make a listing read other than it is.
 */
/** In unicode mode a paired surrogate is one code point: only a lone one is `Cs`. */
const LONE_SURROGATE = /\p{Cs}/u;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/u;

/**
 * The one rule for every name a caller gives a resource (org, team, user, token, webhook, key,
 * bot): trimmed, 1–200 characters, no control or bidi characters, well-formed Unicode (no lone
 * surrogate). Returns the trimmed name, or throws 400 naming `field`.
 */
export function checkName(value: string, field = "name"): string {
  if (LONE_SURROGATE.test(value)) throw invalid(field, `${field} is not well-formed Unicode (a lone surrogate)`);
  const name = value.trim();
  const length = [...name].length;
  if (length === 0 || length > NAME_MAX) throw invalid(field, `${field} must be 1-${NAME_MAX} characters, not counting surrounding spaces`);
  if (FORBIDDEN.test(name)) throw invalid(field, `${field} must not contain control or bidirectional-override characters`);
  return name;
}
