import { invalid } from "./errors.js";

/** Longest name, in characters (code points), after trimming. */
export const NAME_MAX = 200;

/** In unicode mode a paired surrogate is one code point: only a lone one is `Cs`. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * What no stored single-line text may hold: C0 and C1 controls (NUL, CR, LF, ESC and so ANSI
 * escapes), DEL, the line and paragraph separators, and every format character (`Cf`: bidi
 * marks, embeddings, overrides and isolates, zero-width space, word joiner, BOM, soft hyphen …)
 * that make a listing read other than it is. ZWNJ and ZWJ (U+200C, U+200D) stay: Persian and
 * Indic spelling and emoji sequences need them.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const FORBIDDEN_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|(?![\u200c\u200d])\p{Cf}/u;

/** Multi-line text (a variable's value, a card's body) may keep tab and line feed; no other control. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const FORBIDDEN_IN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u;

/**
 * The one rule for every stored single-line text a caller gives (titles, URLs, refs, paths,
 * labels): well-formed Unicode, no control, separator or format character. Returns the value,
 * or throws 400 naming `field`.
 */
export function checkLine(value: string, field: string): string {
  const fault = lineFault(value);
  if (fault) throw invalid(field, `${field} ${fault}`);
  return value;
}

/** Multi-line text: well-formed, tab and line feed allowed, no other control character (so no CR, ESC, NUL). */
export function checkText(value: string, field: string): string {
  const fault = textFault(value);
  if (fault) throw invalid(field, `${field} ${fault}`);
  return value;
}

/** Why a single-line text breaks {@link checkLine}'s rule (the end of a sentence naming the field), or undefined. */
export function lineFault(value: string): string | undefined {
  if (LONE_SURROGATE.test(value)) return "is not well-formed Unicode (a lone surrogate)";
  if (FORBIDDEN_IN_LINE.test(value)) return "must not contain control, line-break, bidirectional or other invisible format characters";
  return undefined;
}

/** Why a multi-line text breaks {@link checkText}'s rule, or undefined. */
export function textFault(value: string): string | undefined {
  if (LONE_SURROGATE.test(value)) return "is not well-formed Unicode (a lone surrogate)";
  if (FORBIDDEN_IN_TEXT.test(value)) return "must not contain control characters other than tab and line feed";
  return undefined;
}

/**
 * The one rule for every name a caller gives a resource (org, team, user, token, webhook, key,
 * bot, schedule, trigger): {@link checkLine}, trimmed, 1–200 characters. Returns the trimmed
 * name, or throws 400 naming `field`.
 */
export function checkName(value: string, field = "name"): string {
  const name = checkLine(value.trim(), field);
  const length = [...name].length;
  if (length === 0 || length > NAME_MAX) throw invalid(field, `${field} must be 1-${NAME_MAX} characters, not counting surrounding spaces`);
  return name;
}

/** Text for a terminal (with `keepLines`, tab and line feed kept, for a log): control, separator, format characters and lone surrogates shown as `?`, so no value can steer it or read reversed. */
export function printable(text: string, keepLines = false): string {
  return text.replace(keepLines ? /[^\P{Cc}\n\t]|[\p{Cf}\p{Cs}\u2028\u2029]/gu : /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/gu, "?");
}
