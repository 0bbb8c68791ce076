// Launch gate decisions per second: the pure decideLaunch over a snapshot with every limit
// enabled (so each check runs), in this process, from the built service.
export async function benchGateDecisions(seconds = 2) {
  const { decideLaunch } = await import("../../dist/admission/decide-launch.js");
  const now = Date.UTC(2026, 10, 21, 12);
  const snapshot = {
    org: { status: "active", monthlyCostCapMicro: 100_000_000, monthlyRunQuota: 1_000_000 },
    team: { maxConcurrentRuns: 50, launchRatePerMin: 600 },
    defaults: { maxConcurrentRuns: 0, launchRatePerMin: 0, monthlyCostCapMicroUsd: 0, monthlyRunQuota: 0 },
    activeRuns: 10,
    bucket: { tokens: 600 * 60_000, updatedAt: now },
    usage: { runs: 500, costMicro: 1_000_000 },
  };
  let decisions = 0;
  let admitted = 0;
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 10_000; i++) {
      if (decideLaunch(snapshot, { bypassGate: false }, now + i).admitted) admitted++;
      decisions++;
    }
  }
  return { rps: decisions / seconds, decisions, admitted };
}
