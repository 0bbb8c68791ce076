import { randomBytes } from "node:crypto";

/** Row id prefixes: an id says what it names. */
export type IdPrefix =
  | "org" | "team" | "usr" | "pat" | "whk" | "dlv" | "run" | "att" | "key" | "sec" | "aud" | "bot" | "park";

export interface IdGenerator {
  next(prefix: IdPrefix): string;
}

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** 16 random characters of base36: about 82 bits, plenty for row ids. */
export const randomIds: IdGenerator = {
  next(prefix) {
    const bytes = randomBytes(16);
    let out = `${prefix}_`;
    for (const b of bytes) out += ALPHABET[b % 36];
    return out;
  },
};

/** Deterministic ids for tests: org_1, org_2, … */
export function sequentialIds(): IdGenerator {
  const counters = new Map<string, number>();
  return {
    next(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}_${n}`;
    },
  };
}
