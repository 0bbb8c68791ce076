import { takeToken, type BucketState } from "../core/token-bucket.js";
import { effectiveLimit, type OrgLimitDefaults } from "../config/config.js";
import { monthOf, nextMonthStart } from "../core/month.js";

/** The stable denial tokens of the spec's gate, in check order. */
export type DenialReason =
  | "org_suspended"
  | "team_suspended"
  | "concurrency_cap_exceeded"
  | "launch_rate_limited"
  | "monthly_cost_cap_exceeded"
  | "monthly_run_quota_exceeded";

export interface LaunchDenial {
  error: DenialReason;
  detail: string;
  /** 403 org or team status, 429 retry later, 402 paying issue that resets next month (Errors rule 1). */
  status: 403 | 429 | 402;
  /** Whole seconds, sent as Retry-After. */
  retryAfter?: number;
  /** First instant of the next UTC month, ISO 8601 with Z; monthly quotas only. */
  resetAt?: string;
}

/** Launch-rate bucket in 1/60000 of a launch: refill is then exactly LaunchRatePerMin units per ms. */
export const BUCKET_UNIT = 60_000;

/** Everything the gate looks at, read under the team and org locks. */
export interface LaunchSnapshot {
  org: {
    status: "active" | "suspended" | "read-only";
    /** Overrides; 0 means "use the platform default". */
    monthlyCostCapMicro: number;
    monthlyRunQuota: number;
  };
  team: { status: "active" | "suspended" | "read-only"; maxConcurrentRuns: number; launchRatePerMin: number };
  defaults: OrgLimitDefaults;
  /** Queued plus running runs of the team. */
  activeRuns: number;
  /** Undefined for a team that never launched: its bucket starts full. */
  bucket: BucketState | undefined;
  /** The org's counters for the UTC month holding `now` (zeros when no row yet). */
  usage: { runs: number; costMicro: number };
}

export interface LaunchFacts {
  /** Super-admin launches skip every check but are still metered. */
  bypassGate: boolean;
}

export type LaunchVerdict =
  | {
      admitted: true;
      /** The bucket state to store; undefined when the rate is unlimited or the gate was bypassed. */
      bucket: BucketState | undefined;
      /** The UTC month the launch is metered in. */
      month: string;
    }
  | { admitted: false; denial: LaunchDenial };

/**
 * Which parts of the snapshot the gate will look at: a limit that is 0 (unlimited) needs no
 * read. Bypassing launches need none; the caller then passes zeros.
 */
export function snapshotNeeds(
  org: LaunchSnapshot["org"],
  team: LaunchSnapshot["team"],
  defaults: OrgLimitDefaults,
  facts: LaunchFacts,
): { activeRuns: boolean; bucket: boolean; usage: boolean } {
  if (facts.bypassGate) return { activeRuns: false, bucket: false, usage: false };
  return {
    activeRuns: effectiveLimit(team.maxConcurrentRuns, defaults.maxConcurrentRuns) > 0,
    bucket: effectiveLimit(team.launchRatePerMin, defaults.launchRatePerMin) > 0,
    usage: effectiveLimit(org.monthlyCostCapMicro, defaults.monthlyCostCapMicroUsd) > 0 || effectiveLimit(org.monthlyRunQuota, defaults.monthlyRunQuota) > 0,
  };
}

/**
 * Whether no check of the gate can deny a launch: both statuses active and every limit unlimited.
 * A delivery's launch then skips the gate's transaction; the store re-checks its own rows in the
 * same commit (store/sqlite/commit-delivery.ts, store/postgres/deliver-webhook-calls.sql), and
 * store/delivery-ledger.test.ts holds the twins to this rule.
 */
export function noLimitApplies(org: LaunchSnapshot["org"], team: LaunchSnapshot["team"], defaults: OrgLimitDefaults): boolean {
  if (org.status !== "active" || team.status !== "active") return false;
  return !Object.values(snapshotNeeds(org, team, defaults, { bypassGate: false })).some(Boolean);
}

/** The launch gate: the first failing check in the spec's order, or admission with the state to write. */
export function decideLaunch(s: LaunchSnapshot, facts: LaunchFacts, now: number): LaunchVerdict {
  const month = monthOf(now);
  if (facts.bypassGate) return { admitted: true, bucket: undefined, month };

  if (s.org.status !== "active") {
    return deny("org_suspended", 403, `the organisation is ${s.org.status}; only an active organisation can launch runs`);
  }
  // Not in the spec's gate: a team an org admin suspended launches nothing either.
  if (s.team.status !== "active") {
    return deny("team_suspended", 403, `the team is ${s.team.status}; only an active team can launch runs`);
  }

  const maxConcurrent = effectiveLimit(s.team.maxConcurrentRuns, s.defaults.maxConcurrentRuns);
  if (maxConcurrent > 0 && s.activeRuns >= maxConcurrent) {
    return deny("concurrency_cap_exceeded", 429, `the team has ${s.activeRuns} active runs; the limit is ${maxConcurrent}`, { retryAfter: 30 });
  }

  const rate = effectiveLimit(s.team.launchRatePerMin, s.defaults.launchRatePerMin);
  let bucket: BucketState | undefined;
  if (rate > 0) {
    const taken = takeLaunchToken(s.bucket, rate, now);
    if (!taken.ok) {
      return deny("launch_rate_limited", 429, `the team may launch ${rate} runs per minute`, { retryAfter: taken.retryAfter });
    }
    bucket = taken.next;
  }

  const resetAt = new Date(nextMonthStart(now)).toISOString();
  const costCap = effectiveLimit(s.org.monthlyCostCapMicro, s.defaults.monthlyCostCapMicroUsd);
  if (costCap > 0 && s.usage.costMicro >= costCap) {
    return deny("monthly_cost_cap_exceeded", 402, `the organisation reached its monthly cost cap of ${costCap / 1e6} USD for ${month}`, { resetAt });
  }

  const quota = effectiveLimit(s.org.monthlyRunQuota, s.defaults.monthlyRunQuota);
  if (quota > 0 && s.usage.runs + 1 > quota) {
    return deny("monthly_run_quota_exceeded", 402, `the organisation used its monthly quota of ${quota} runs for ${month}`, { resetAt });
  }

  return { admitted: true, bucket, month };
}

/**
 * Token bucket with burst `ratePerMin` launches, refilled at ratePerMin/60 per second. In units
 * of 1/60000 launch the refill is `ratePerMin` units per millisecond, so all maths is integral.
 */
export function takeLaunchToken(
  state: BucketState | undefined,
  ratePerMin: number,
  now: number,
): { ok: true; next: BucketState } | { ok: false; retryAfter: number } {
  const verdict = takeToken(state, { refillPerMs: ratePerMin, capacity: ratePerMin * BUCKET_UNIT, cost: BUCKET_UNIT }, now);
  return verdict.ok ? verdict : { ok: false, retryAfter: verdict.retryAfterSeconds };
}

function deny(error: DenialReason, status: LaunchDenial["status"], detail: string, extra: { retryAfter?: number; resetAt?: string } = {}): LaunchVerdict {
  return { admitted: false, denial: { error, detail, status, ...extra } };
}
