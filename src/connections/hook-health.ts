import { iso } from "../core/iso.js";
import type { ForgeError } from "../forges/shared/forge-client.js";
import type { HookDelivery, HookState } from "../forges/shared/forge-hooks.js";

export type HealthStatus = "healthy" | "degraded" | "broken";

/**
 * Every problem a health report can name, with what it makes of the repository: `broken` when
 * the forge does not call the service where it should (or we cannot see whether it does),
 * `degraded` when it calls but deliveries are lost, refused or not all sent.
 */
const SEVERITY = {
  /** Without the forge's answer the hook cannot be vouched for, and neither repair nor the lanes that ask the forge work. */
  forge_unreachable: "broken",
  hook_missing: "broken",
  hook_moved: "broken",
  hook_disabled: "broken",
  events_missing: "degraded",
  deliveries_failing: "degraded",
  signature_refused: "degraded",
} as const satisfies Record<string, Exclude<HealthStatus, "healthy">>;

export type ProblemCode = keyof typeof SEVERITY;

export interface HealthProblem {
  code: ProblemCode;
  /** A sentence for people. */
  detail: string;
}

/** A hook's latest deliveries as the forge recorded them (GitHub), as the report shows them. */
export interface DeliveriesSummary {
  checked: number;
  failed: number;
  /** Failures in a row, counting back from the latest delivery. */
  failing_streak: number;
  latest_failure: { status_code: number; status: string; delivered_at: string } | null;
  latest_success_at: string | null;
}

export interface HookFacts {
  /** The hook as last committed by a provision or repair; null when no forge write was ever committed. */
  committed: { id: string; url: string } | null;
  /** The forge's answer: the hook (null when it says it is gone; not asked when nothing was committed), or its failure. */
  forge: { read: HookState | null } | { unreachable: ForgeError };
  /** The events the lanes need, in the forge's names. */
  neededEvents: readonly string[];
  deliveries: DeliveriesSummary | null;
  /** Deliveries this service refused unproven (bad signature or token) since the hook's secret was last written. */
  refused: { count: number; latestAt: number | null };
}

/** A delivery failed when the forge got no 2xx (GitHub's status_code 0: no answer at all). */
const failed = (d: HookDelivery) => d.statusCode < 200 || d.statusCode >= 300;

/** GitHub's deliveries, newest first, summarised. */
export function summariseDeliveries(deliveries: HookDelivery[]): DeliveriesSummary {
  const streak = deliveries.findIndex((d) => !failed(d));
  const latestFailure = deliveries.find(failed);
  return {
    checked: deliveries.length,
    failed: deliveries.filter(failed).length,
    failing_streak: streak < 0 ? deliveries.length : streak,
    latest_failure: latestFailure ? { status_code: latestFailure.statusCode, status: latestFailure.status, delivered_at: latestFailure.deliveredAt } : null,
    latest_success_at: deliveries.find((d) => !failed(d))?.deliveredAt ?? null,
  };
}

/** What the facts about a provisioned repository's hook make of it: the worst problem's severity, and every problem. */
export function judgeHookHealth(f: HookFacts): { status: HealthStatus; problems: HealthProblem[] } {
  const problems = [...forgeProblems(f), ...refusedProblems(f)];
  const status = problems.some((p) => SEVERITY[p.code] === "broken") ? "broken" : problems.length > 0 ? "degraded" : "healthy";
  return { status, problems };
}

function forgeProblems(f: HookFacts): HealthProblem[] {
  if (f.committed === null) return [{ code: "hook_missing", detail: "no hook has been committed for this repository; repair makes one" }];
  if ("unreachable" in f.forge) {
    const e = f.forge.unreachable;
    const why = e.code === "forge_denied" ? `it refused the connection's credential (${e.reason})` : e.reason;
    return [{ code: "forge_unreachable", detail: `the hook could not be read from the forge: ${why}` }];
  }
  const hook = f.forge.read;
  if (hook === null) return [{ code: "hook_missing", detail: `the forge has no hook ${f.committed.id} on this repository; repair makes one again` }];
  const problems: HealthProblem[] = [];
  if (hook.url !== f.committed.url) {
    problems.push({ code: "hook_moved", detail: `the hook calls ${hook.url}, not ${f.committed.url}; repair points it back` });
  }
  if (!hook.active) problems.push({ code: "hook_disabled", detail: `${disabledWhy(hook)}; repair enables it` });
  const missing = hook.events === undefined || hook.everyEvent === true ? [] : f.neededEvents.filter((e) => !hook.events!.includes(e));
  if (missing.length > 0) {
    problems.push({ code: "events_missing", detail: `the hook is not subscribed to ${missing.join(", ")}, which the lanes need; repair subscribes it` });
  }
  const d = f.deliveries;
  if (d !== null && d.failing_streak > 0 && d.latest_failure !== null) {
    const { status_code, status, delivered_at } = d.latest_failure;
    const answer = status_code === 0 ? `got no answer (${status})` : `was answered ${status_code}`;
    problems.push({
      code: "deliveries_failing",
      detail: `the forge's last ${d.failing_streak} of ${d.checked} deliveries failed; the latest, at ${delivered_at}, ${answer}`,
    });
  }
  return problems;
}

/** The forge's reason where it gives one (GitLab's failure holds), else that it is off. */
function disabledWhy(hook: HookState): string {
  return hook.inactiveWhy ?? "the hook is switched off on the forge";
}

function refusedProblems(f: HookFacts): HealthProblem[] {
  const { count, latestAt } = f.refused;
  if (count === 0) return [];
  const noun = count === 1 ? "delivery was" : "deliveries were";
  return [
    {
      code: "signature_refused",
      detail: `${count} ${noun} refused for a bad signature or token since the hook's secret was last written (the latest at ${iso(latestAt)}): the forge, or whoever sent them, holds another secret`,
    },
  ];
}
