import { randomFillSync } from "node:crypto";

/** Row id prefixes: an id says what it names. */
export type IdPrefix =
  | "org"
  | "team"
  | "usr"
  | "pat"
  | "whk"
  | "dlv"
  | "run"
  | "att"
  | "key"
  | "sec"
  | "aud"
  | "bot"
  | "park"
  | "sch"
  | "trg"
  | "card"
  | "sid"
  | "rst"
  | "fcn"
  | "rbt"
  | "rtk"
  | "req";

export interface IdGenerator {
  next(prefix: IdPrefix): string;
}

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

let lastMs = 0;
let sequence = 0;

// Random bytes drawn 4 KB at a time: one call into the CSPRNG per ~400 ids, not one per id.
const pool = Buffer.alloc(4000);
let used = pool.length;

/**
 * Time-ordered ids: 9 characters of milliseconds, 3 of an in-process sequence, 10 random
 * (about 51 bits). Sorting by id is sorting by creation, so "newest first" holds within a
 * millisecond too (across processes, within a millisecond, the order is arbitrary).
 */
export const randomIds: IdGenerator = {
  next(prefix) {
    const now = Date.now();
    if (now > lastMs) {
      lastMs = now;
      sequence = 0;
    } else {
      sequence = (sequence + 1) % 46_656;
    }
    let out = `${prefix}_${lastMs.toString(36).padStart(9, "0")}${sequence.toString(36).padStart(3, "0")}`;
    if (used + 10 > pool.length) {
      randomFillSync(pool);
      used = 0;
    }
    for (let i = used; i < used + 10; i++) out += ALPHABET[pool[i]! % 36];
    used += 10;
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
