import type { Db } from "../store/store.js";
import { findDeliveryByKey, type KeyHolder } from "../store/deliveries.js";
import { isUniqueViolation } from "../store/errors.js";
import { deniedColumns, writeDeliveryRecord, type DeliveryRecord } from "../store/launch-record.js";
import type { ActiveRun } from "../store/active-runs.js";
import type { LaunchDenial } from "./decide-launch.js";
import type { TakenResult } from "./launch-types.js";

// How a launch's record meets the gate's transaction: its writes and checks, and the one way a
// lost race ends (`taken`).

/** An error writing the launch's record: rethrown as is, never taken for a gate error. */
export class RecordError extends Error {
  constructor(readonly original: unknown) {
    super("launch record failed");
  }
}

/** The record lost a race: its key is held (by `holder`, when read), or what it writes left the state it expects. */
class KeyTaken extends Error {
  constructor(readonly holder?: KeyHolder) {
    super("launch record taken");
  }
}

/** `overlap: skip` found runs in flight under the team's lock. */
export class Overlapping extends Error {
  constructor(readonly active: ActiveRun[]) {
    super("overlapping runs in flight");
  }
}

/** What a delivery's launch adds to the gate's transaction. */
export interface Gated {
  lock?: boolean;
  /** Before the verdict: a new row's key, read under the gate's transaction; held, the launch is `taken`. */
  keyFree?: (tx: Db) => Promise<void>;
  denied?: (tx: Db, denial: LaunchDenial, now: number) => Promise<void>;
}

/**
 * Whether a denial is written on the record's row: a new row and a retried launch_error are
 * settled as launch_error; a parked push's `accepted` row waits for its next try.
 */
export function recordsDenial(record: DeliveryRecord): boolean {
  return "insert" in record || record.settle.from === "launch_error";
}

/** The denial written on the record's row. */
export function deniedRecord(record: DeliveryRecord): NonNullable<Gated["denied"]> {
  return (tx, denial, now) => keepRecord(() => writeDeliveryRecord(tx, record, deniedColumns(denial, now)));
}

/** A new row's key read in the gate's transaction: held, the launch ends as `taken` with its holder. */
export function keyFree(record: Extract<DeliveryRecord, { insert: unknown }>): NonNullable<Gated["keyFree"]> {
  return async (tx) => {
    const holder = await findDeliveryByKey(tx, record.insert.tenant_id, record.insert.idempotency_key);
    if (holder) throw new RecordError(new KeyTaken(holder));
  };
}

/** The record's write, or the launch's commit rolled back as a lost race (`KeyTaken`, a unique violation). */
export async function keepRecord(write: () => Promise<boolean>): Promise<void> {
  let kept: boolean;
  try {
    kept = await write();
  } catch (err) {
    throw new RecordError(err);
  }
  if (!kept) throw new RecordError(new KeyTaken());
}

/** The one way a race ends: a record that left its state or a key's unique index is `taken`. */
export function lostRace(err: unknown): TakenResult {
  if (err instanceof KeyTaken) return { kind: "taken", holder: err.holder, recorded: false };
  if (isUniqueViolation(err)) return { kind: "taken", holder: undefined, recorded: false };
  throw err;
}
