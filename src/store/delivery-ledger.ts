import { traced, tracingOn } from "../core/tracing.js";
import type { KeyHolder, NewDelivery } from "./deliveries.js";
import type { RunRow } from "./runs.js";

/** A webhook call's limits: its bucket, then the monthly call quota of its org and its own. */
export interface CallLimits {
  webhookId: string;
  orgId: string;
  rate: number;
  burst: number;
  /** 0 means unlimited. */
  orgMonthlyCalls: number;
  /** 0 inherits the org's cap alone. */
  webhookMonthlyCalls: number;
  month: string;
  now: number;
}

export type CallAdmission = { kind: "admitted" } | CallRefusal;
export type CallRefusal = { kind: "rate_limited"; retryAfterSeconds: number } | { kind: "quota_exceeded"; scope: "org" | "webhook" };

/** A launch written with its delivery row when the key is free and no limit applies (`noLimitApplies`). */
export interface LedgerLaunch {
  teamId: string;
  /** The run's row; the store sets its `org_id` from the team. */
  run: RunRow;
  /** The month the run is counted in. */
  month: string;
}

/** One webhook call's writes, committed atomically. */
export interface DeliveryCommit {
  /** The call's bucket and quota, decided first: refused, nothing else is written. */
  admission?: CallLimits;
  row: NewDelivery;
  /** The run the row launches, when the row's key is free. */
  launch?: LedgerLaunch;
  /**
   * The id of this delivery's own row when another row holds the key (a launch_error holder
   * excepted: the caller retries it). Without `launch`, the commit is a replay's key check.
   */
  replayOf?: string;
}

/**
 * What a commit did, a closed list:
 * - `refused`: the admission refused the call; nothing written.
 * - `recorded`: the row written (no launch, no key check).
 * - `launched`: the run and the row written, the run counted in its org's month.
 * - `taken`: another row holds the key; `recorded` when this delivery's duplicate row was written.
 * - `gate`: the key is free but a limit or a status needs the launch gate; nothing written.
 * - `free`: a replay's key check found the key free; nothing written.
 */
export type CommitAnswer =
  | { kind: "refused"; refusal: CallRefusal }
  | { kind: "recorded" }
  | { kind: "launched"; orgId: string }
  | { kind: "taken"; holder: KeyHolder; recorded: boolean }
  | { kind: "gate" }
  | { kind: "free" };

/**
 * The delivery write path of a store: one operation per webhook call. Each store batches,
 * switches threads and shares commits inside its own implementation (store/sqlite/,
 * store/postgres/); a resolved answer is durable.
 */
export interface DeliveryLedger {
  commit(c: DeliveryCommit): Promise<CommitAnswer>;
  /** The call's admission alone, for outcomes that write no delivery row of their own. */
  admit(limits: CallLimits): Promise<CallAdmission>;
}

export const ADMITTED: CallAdmission = { kind: "admitted" };
export const RECORDED: CommitAnswer = { kind: "recorded" };
export const FREE: CommitAnswer = { kind: "free" };
export const GATE: CommitAnswer = { kind: "gate" };

/**
 * The ledger with each commit and lone admission as a span (`store.commit`, `store.admit`): the
 * database, what the commit carries and what it did. While tracing is off, the ledger's own call.
 */
export function tracedLedger(ledger: DeliveryLedger, system: "sqlite" | "postgresql"): DeliveryLedger {
  const commit = (c: DeliveryCommit) =>
    traced(
      "store.commit",
      { "db.system.name": system, "ledger.admission": c.admission !== undefined, "ledger.launch": c.launch !== undefined },
      async (span) => {
        const answer = await ledger.commit(c);
        span.set({ "ledger.answer": answer.kind });
        return answer;
      },
    );
  const admit = (limits: CallLimits) =>
    traced("store.admit", { "db.system.name": system }, async (span) => {
      const admission = await ledger.admit(limits);
      span.set({ "ledger.answer": admission.kind });
      return admission;
    });
  return {
    commit: (c) => (tracingOn() ? commit(c) : ledger.commit(c)),
    admit: (limits) => (tracingOn() ? admit(limits) : ledger.admit(limits)),
  };
}
