import { describe, expect, it } from "vitest";
import { checkCron, nextOccurrence } from "./next-occurrence.js";

const at = (iso: string) => Date.parse(iso);

describe("a schedule's next occurrence", () => {
  it.each([
    ["nightly at 02:00 Berlin, in winter (UTC+1)", "0 2 * * *", "Europe/Berlin", "2026-11-25T12:00:00Z", "2026-11-26T01:00:00.000Z"],
    ["nightly at 02:00 Berlin, in summer (UTC+2)", "0 2 * * *", "Europe/Berlin", "2026-07-01T12:00:00Z", "2026-07-02T00:00:00.000Z"],
    ["weekdays at 09:30 New York", "30 9 * * 1-5", "America/New_York", "2026-11-27T15:00:00Z", "2026-11-30T14:30:00.000Z"],
    ["every 15 minutes, UTC", "*/15 * * * *", "UTC", "2026-11-25T12:00:00Z", "2026-11-25T12:15:00.000Z"],
    ["strictly after an exact occurrence", "0 * * * *", "UTC", "2026-11-25T12:00:00Z", "2026-11-25T13:00:00.000Z"],
  ])("%s", (_label, cron, tz, after, expected) => {
    expect(new Date(nextOccurrence(cron, tz, at(after))!).toISOString()).toBe(expected);
  });

  it("collapses a day of missed hourly occurrences into the next one after now", () => {
    const now = at("2026-11-26T12:10:00Z");
    expect(new Date(nextOccurrence("0 * * * *", "UTC", now)!).toISOString()).toBe("2026-11-26T13:00:00.000Z");
  });

  it.each([
    ["six fields (seconds)", "*/5 * * * * *", "UTC", "cron"],
    ["a minute out of range", "61 * * * *", "UTC", "cron"],
    ["words", "every night", "UTC", "cron"],
    ["an unknown zone", "0 2 * * *", "Mars/Olympus", "timezone"],
  ])("refuses %s", (_label, cron, tz, field) => {
    expect(() => checkCron(cron, tz)).toThrow(expect.objectContaining({ field }));
  });
});
