import { describe, expect, it } from "vitest";
import { BUCKET_UNIT, decideLaunch, snapshotNeeds, takeLaunchToken, type LaunchSnapshot } from "./decide-launch.js";

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const NO_DEFAULTS = { maxConcurrentRuns: 0, launchRatePerMin: 0, monthlyCostCapMicroUsd: 0, monthlyRunQuota: 0 };

function snap(over: Partial<{ [K in keyof LaunchSnapshot]: Partial<LaunchSnapshot[K]> }> = {}): LaunchSnapshot {
  return {
    org: { status: "active", monthlyCostCapMicro: 0, monthlyRunQuota: 0, ...over.org },
    team: { status: "active", maxConcurrentRuns: 0, launchRatePerMin: 0, ...over.team },
    defaults: { ...NO_DEFAULTS, ...over.defaults },
    activeRuns: (over.activeRuns as number | undefined) ?? 0,
    bucket: over.bucket as LaunchSnapshot["bucket"],
    usage: { runs: 0, costMicro: 0, ...over.usage },
  };
}

const full = (rate: number) => ({ tokens: rate * BUCKET_UNIT, updatedAt: NOW });
const empty = { tokens: 0, updatedAt: NOW };

describe("decideLaunch", () => {
  const cases: { name: string; s: LaunchSnapshot; want: string | "admit"; now?: number }[] = [
    { name: "no limits at all", s: snap(), want: "admit" },
    { name: "org suspended", s: snap({ org: { status: "suspended" } }), want: "org_suspended" },
    { name: "org read-only", s: snap({ org: { status: "read-only" } }), want: "org_suspended" },
    { name: "team suspended", s: snap({ team: { status: "suspended" } }), want: "team_suspended" },
    { name: "team suspended, org suspended: the org first", s: snap({ org: { status: "suspended" }, team: { status: "suspended" } }), want: "org_suspended" },
    {
      name: "team suspended before a full concurrency cap",
      s: snap({ team: { status: "suspended", maxConcurrentRuns: 1 }, activeRuns: 1 }),
      want: "team_suspended",
    },
    // Concurrency: limit - 1, limit, limit + 1 active runs.
    { name: "concurrency limit-1", s: snap({ team: { maxConcurrentRuns: 3 }, activeRuns: 2 }), want: "admit" },
    { name: "concurrency at limit", s: snap({ team: { maxConcurrentRuns: 3 }, activeRuns: 3 }), want: "concurrency_cap_exceeded" },
    { name: "concurrency limit+1", s: snap({ team: { maxConcurrentRuns: 3 }, activeRuns: 4 }), want: "concurrency_cap_exceeded" },
    { name: "concurrency 0 = unlimited", s: snap({ activeRuns: 10_000 }), want: "admit" },
    { name: "concurrency default applies", s: snap({ defaults: { maxConcurrentRuns: 2 }, activeRuns: 2 }), want: "concurrency_cap_exceeded" },
    {
      name: "concurrency override beats default",
      s: snap({ team: { maxConcurrentRuns: 5 }, defaults: { maxConcurrentRuns: 2 }, activeRuns: 2 }),
      want: "admit",
    },
    // Launch rate.
    { name: "rate: fresh bucket is full", s: snap({ team: { launchRatePerMin: 1 } }), want: "admit" },
    { name: "rate: empty bucket", s: snap({ team: { launchRatePerMin: 6 }, bucket: empty }), want: "launch_rate_limited" },
    { name: "rate: default applies", s: snap({ defaults: { launchRatePerMin: 6 }, bucket: empty }), want: "launch_rate_limited" },
    { name: "rate: refilled after 10 s at 6/min", s: snap({ team: { launchRatePerMin: 6 }, bucket: empty }), now: NOW + 10_000, want: "admit" },
    { name: "rate: 1 ms short of a token", s: snap({ team: { launchRatePerMin: 6 }, bucket: empty }), now: NOW + 9_999, want: "launch_rate_limited" },
    // Monthly cost cap: below, at, above.
    { name: "cost below cap", s: snap({ org: { monthlyCostCapMicro: 1_000_000 }, usage: { costMicro: 999_999 } }), want: "admit" },
    { name: "cost at cap", s: snap({ org: { monthlyCostCapMicro: 1_000_000 }, usage: { costMicro: 1_000_000 } }), want: "monthly_cost_cap_exceeded" },
    { name: "cost above cap", s: snap({ org: { monthlyCostCapMicro: 1_000_000 }, usage: { costMicro: 1_000_001 } }), want: "monthly_cost_cap_exceeded" },
    { name: "cost default cap", s: snap({ defaults: { monthlyCostCapMicroUsd: 5 }, usage: { costMicro: 5 } }), want: "monthly_cost_cap_exceeded" },
    // Run quota: the new total may reach but not exceed the quota.
    { name: "quota limit-1 used", s: snap({ org: { monthlyRunQuota: 10 }, usage: { runs: 9 } }), want: "admit" },
    { name: "quota limit used", s: snap({ org: { monthlyRunQuota: 10 }, usage: { runs: 10 } }), want: "monthly_run_quota_exceeded" },
    { name: "quota limit+1 used", s: snap({ org: { monthlyRunQuota: 10 }, usage: { runs: 11 } }), want: "monthly_run_quota_exceeded" },
    { name: "quota override beats default", s: snap({ org: { monthlyRunQuota: 20 }, defaults: { monthlyRunQuota: 10 }, usage: { runs: 15 } }), want: "admit" },
    { name: "quota 0 = unlimited", s: snap({ usage: { runs: 1e9 } }), want: "admit" },
    // Order: the first failing check wins.
    {
      name: "status before everything",
      s: snap({
        org: { status: "suspended", monthlyRunQuota: 1, monthlyCostCapMicro: 1 },
        team: { maxConcurrentRuns: 1, launchRatePerMin: 1 },
        activeRuns: 5,
        bucket: empty,
        usage: { runs: 5, costMicro: 5 },
      }),
      want: "org_suspended",
    },
    {
      name: "concurrency before rate",
      s: snap({ team: { maxConcurrentRuns: 1, launchRatePerMin: 1 }, activeRuns: 1, bucket: empty }),
      want: "concurrency_cap_exceeded",
    },
    {
      name: "rate before cost",
      s: snap({ org: { monthlyCostCapMicro: 1 }, team: { launchRatePerMin: 1 }, bucket: empty, usage: { costMicro: 5 } }),
      want: "launch_rate_limited",
    },
    {
      name: "cost before quota",
      s: snap({ org: { monthlyCostCapMicro: 1, monthlyRunQuota: 1 }, usage: { costMicro: 5, runs: 5 } }),
      want: "monthly_cost_cap_exceeded",
    },
  ];

  it.each(cases)("$name → $want", ({ s, want, now }) => {
    const v = decideLaunch(s, { bypassGate: false }, now ?? NOW);
    expect(v.admitted ? "admit" : v.denial.error).toBe(want);
  });

  it("maps each denial to the spec's status and headers", () => {
    const check = (s: LaunchSnapshot) => {
      const v = decideLaunch(s, { bypassGate: false }, NOW);
      if (v.admitted) throw new Error("admitted");
      return v.denial;
    };
    expect(check(snap({ org: { status: "suspended" } }))).toMatchObject({ status: 403 });
    expect(check(snap({ team: { maxConcurrentRuns: 1 }, activeRuns: 1 }))).toMatchObject({ status: 429, retryAfter: 30 });
    const cost = check(snap({ org: { monthlyCostCapMicro: 1 }, usage: { costMicro: 1 } }));
    expect(cost).toMatchObject({ status: 402, resetAt: "2026-12-01T00:00:00.000Z" });
    expect(check(snap({ org: { monthlyRunQuota: 1 }, usage: { runs: 1 } }))).toMatchObject({ status: 402, resetAt: "2026-12-01T00:00:00.000Z" });
  });

  it("meters in the UTC month of the instant: 23:59:59.999 vs 00:00 of the next month", () => {
    const lastMs = Date.UTC(2026, 11, 31, 23, 59, 59, 999);
    const v1 = decideLaunch(snap(), { bypassGate: false }, lastMs);
    const v2 = decideLaunch(snap(), { bypassGate: false }, lastMs + 1);
    expect(v1.admitted && v1.month).toBe("2026-12");
    expect(v2.admitted && v2.month).toBe("2027-01");
    const d1 = decideLaunch(snap({ org: { monthlyRunQuota: 1 }, usage: { runs: 1 } }), { bypassGate: false }, lastMs);
    expect(!d1.admitted && d1.denial.resetAt).toBe("2027-01-01T00:00:00.000Z");
  });

  it("lets super-admins through every check without spending a token", () => {
    const v = decideLaunch(snap({ org: { status: "suspended" }, team: { launchRatePerMin: 1 }, bucket: empty }), { bypassGate: true }, NOW);
    expect(v).toEqual({ admitted: true, bucket: undefined, month: "2026-11" });
  });

  it("spends exactly one token and writes the bucket only when the rate is limited", () => {
    const v = decideLaunch(snap({ team: { launchRatePerMin: 3 }, bucket: full(3) }), { bypassGate: false }, NOW);
    expect(v.admitted && v.bucket).toEqual({ tokens: 2 * BUCKET_UNIT, updatedAt: NOW });
    const unlimited = decideLaunch(snap(), { bypassGate: false }, NOW);
    expect(unlimited.admitted && unlimited.bucket).toBeUndefined();
  });
});

describe("takeLaunchToken", () => {
  it("bursts up to the rate, then refills rate/60 per second", () => {
    let state: { tokens: number; updatedAt: number } | undefined;
    for (let i = 0; i < 4; i++) {
      const r = takeLaunchToken(state, 4, NOW);
      if (!r.ok) throw new Error(`launch ${i} refused`);
      state = r.next;
    }
    expect(takeLaunchToken(state, 4, NOW)).toEqual({ ok: false, retryAfter: 15 });
    expect(takeLaunchToken(state, 4, NOW + 15_000).ok).toBe(true);
  });

  it("rounds Retry-After up to whole seconds, at least 1", () => {
    // 60/min: one token a second; 1 ms left to wait is still a 1 s answer.
    expect(takeLaunchToken({ tokens: BUCKET_UNIT - 60, updatedAt: NOW }, 60, NOW)).toEqual({ ok: false, retryAfter: 1 });
    // 7/min: a token every 8571.43 ms → 9 s.
    expect(takeLaunchToken({ tokens: 0, updatedAt: NOW }, 7, NOW)).toEqual({ ok: false, retryAfter: 9 });
    // 1/min, 30.001 s elapsed: 29.999 s left → 30 s.
    expect(takeLaunchToken({ tokens: 0, updatedAt: NOW }, 1, NOW + 30_001)).toEqual({ ok: false, retryAfter: 30 });
  });

  it("never stores more than the burst, and a clock going backwards adds nothing", () => {
    const r = takeLaunchToken({ tokens: 0, updatedAt: NOW }, 2, NOW + 3_600_000);
    expect(r.ok && r.next.tokens).toBe(1 * BUCKET_UNIT);
    expect(takeLaunchToken({ tokens: 0, updatedAt: NOW }, 2, NOW - 60_000).ok).toBe(false);
  });
});

describe("snapshotNeeds", () => {
  const none = { maxConcurrentRuns: 0, launchRatePerMin: 0, monthlyCostCapMicroUsd: 0, monthlyRunQuota: 0 };
  const org = (cap: number, quota: number) => ({ status: "active" as const, monthlyCostCapMicro: cap, monthlyRunQuota: quota });
  const team = (max: number, rate: number) => ({ status: "active" as const, maxConcurrentRuns: max, launchRatePerMin: rate });
  it.each([
    ["all unlimited", org(0, 0), team(0, 0), none, false, { activeRuns: false, bucket: false, usage: false }],
    ["team concurrency override", org(0, 0), team(5, 0), none, false, { activeRuns: true, bucket: false, usage: false }],
    ["platform concurrency default", org(0, 0), team(0, 0), { ...none, maxConcurrentRuns: 2 }, false, { activeRuns: true, bucket: false, usage: false }],
    ["launch rate", org(0, 0), team(0, 30), none, false, { activeRuns: false, bucket: true, usage: false }],
    ["cost cap", org(1_000_000, 0), team(0, 0), none, false, { activeRuns: false, bucket: false, usage: true }],
    ["run quota default", org(0, 0), team(0, 0), { ...none, monthlyRunQuota: 10 }, false, { activeRuns: false, bucket: false, usage: true }],
    ["bypass reads nothing", org(1, 1), team(1, 1), none, true, { activeRuns: false, bucket: false, usage: false }],
  ])("%s", (_name, o, t, defaults, bypassGate, want) => {
    expect(snapshotNeeds(o, t, defaults, { bypassGate })).toEqual(want);
  });
});
