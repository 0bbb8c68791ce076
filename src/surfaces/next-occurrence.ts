import { Cron } from "croner";
import { invalid } from "../core/errors.js";

/** A schedule's cron expression and time zone, checked: five fields (minute precision) and an IANA zone. */
export function checkCron(cron: string, timezone: string): void {
  if (cron.trim().split(/\s+/).length !== 5) throw invalid("cron", "cron must have five fields: minute hour day-of-month month day-of-week");
  try {
    new Intl.DateTimeFormat("en", { timeZone: timezone });
  } catch {
    throw invalid("timezone", `unknown time zone ${JSON.stringify(timezone)}; use an IANA name such as Europe/Berlin`);
  }
  try {
    new Cron(cron, { timezone, paused: true, mode: "5-part" });
  } catch (err) {
    throw invalid("cron", `cron: ${(err as Error).message}`);
  }
}

/**
 * The first occurrence strictly after `after` (epoch ms), or null when there is none. Taken
 * after the time a due occurrence is launched, not after the occurrence itself, so occurrences
 * missed while no replica ran collapse into one catch-up launch.
 */
export function nextOccurrence(cron: string, timezone: string, after: number): number | null {
  const next = new Cron(cron, { timezone, paused: true, mode: "5-part" }).nextRun(new Date(after));
  return next ? next.getTime() : null;
}
