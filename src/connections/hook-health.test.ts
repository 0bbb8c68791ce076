import { describe, expect, it } from "vitest";
import type { HookDelivery, HookState } from "../forges/shared/forge-hooks.js";
import { type HookFacts, judgeHookHealth, type ProblemCode, summariseDeliveries } from "./hook-health.js";

const URL_NOW = "https://gw.example/api/webhooks/forge_b/wh_1";
const NEEDED = ["pull_request", "issue_comment"];
const hook = (over: Partial<HookState> = {}): HookState => ({ id: "7", url: URL_NOW, active: true, events: [...NEEDED], ...over });
const healthy: HookFacts = {
  committed: { id: "7", url: URL_NOW },
  forge: { read: hook() },
  neededEvents: NEEDED,
  deliveries: null,
  refused: { count: 0, latestAt: null },
};
const delivery = (statusCode: number, minute: number): HookDelivery => ({
  id: String(minute),
  guid: `g-${minute}`,
  deliveredAt: `2026-11-21T11:0${minute}:00Z`,
  redelivery: false,
  duration: 0.1,
  status: statusCode === 0 ? "failed to connect" : statusCode < 300 ? "OK" : `Invalid HTTP Response: ${statusCode}`,
  statusCode,
  event: "pull_request",
  action: "opened",
});
/** Newest first, as GitHub lists them. */
const summary = (...codes: number[]) => summariseDeliveries(codes.map((c, i) => delivery(c, codes.length - i)));

const rows: [string, Partial<HookFacts>, "healthy" | "degraded" | "broken", ProblemCode[]][] = [
  ["the hook at its address, on, subscribed, nothing refused", {}, "healthy", []],
  ["a subscription to every event (GitHub's `*`) covers the lanes'", { forge: { read: hook({ events: ["*"], everyEvent: true }) } }, "healthy", []],
  ["a forge that does not list events is not second-guessed", { forge: { read: hook({ events: undefined }) } }, "healthy", []],
  ["deliveries that failed before the latest succeeded", { deliveries: summary(200, 502, 502) }, "healthy", []],
  ["no hook was ever committed", { committed: null, forge: { read: null } }, "broken", ["hook_missing"]],
  ["the forge says the hook is gone", { forge: { read: null } }, "broken", ["hook_missing"]],
  ["the hook calls another address", { forge: { read: hook({ url: "https://elsewhere.example/x" }) } }, "broken", ["hook_moved"]],
  ["GitHub or Forgejo switched it off", { forge: { read: hook({ active: false }) } }, "broken", ["hook_disabled"]],
  [
    "GitLab holds it back for a while",
    {
      forge: {
        read: hook({
          active: false,
          alertStatus: "temporarily_disabled",
          disabledUntil: "2026-11-21T13:00:00Z",
          inactiveWhy: "GitLab holds the hook back until 13:00",
        }),
      },
    },
    "broken",
    ["hook_disabled"],
  ],
  [
    "the forge cannot be reached",
    { forge: { unreachable: { code: "forge_unavailable", reason: "the forge answered 502", status: 502 } } },
    "broken",
    ["forge_unreachable"],
  ],
  [
    "the forge refuses the credential",
    { forge: { unreachable: { code: "forge_denied", reason: "the forge answered 401", status: 401 } } },
    "broken",
    ["forge_unreachable"],
  ],
  ["an event the lanes need is not subscribed", { forge: { read: hook({ events: ["pull_request"] }) } }, "degraded", ["events_missing"]],
  ["the latest deliveries failed", { deliveries: summary(401, 401, 200) }, "degraded", ["deliveries_failing"]],
  ["the forge got no answer at all", { deliveries: summary(0) }, "degraded", ["deliveries_failing"]],
  ["deliveries refused here for their signature", { refused: { count: 2, latestAt: Date.UTC(2026, 10, 21, 11) } }, "degraded", ["signature_refused"]],
  [
    "moved and switched off and refused: every problem, the worst status",
    { forge: { read: hook({ url: "https://elsewhere.example/x", active: false }) }, refused: { count: 1, latestAt: 0 } },
    "broken",
    ["hook_moved", "hook_disabled", "signature_refused"],
  ],
  [
    "our own refusals are counted even when the forge cannot be read",
    { forge: { unreachable: { code: "rate_limited", reason: "the forge rate-limited the token (429)" } }, refused: { count: 1, latestAt: 0 } },
    "broken",
    ["forge_unreachable", "signature_refused"],
  ],
];

describe("judgeHookHealth", () => {
  it.each(rows)("%s", (_name, over, status, codes) => {
    const verdict = judgeHookHealth({ ...healthy, ...over });
    expect(verdict.status).toBe(status);
    expect(verdict.problems.map((p) => p.code)).toEqual(codes);
    for (const p of verdict.problems) expect(p.detail.length).toBeGreaterThan(20);
  });

  it("says in its sentences what the forge answered", () => {
    const failing = judgeHookHealth({ ...healthy, deliveries: summary(401, 401, 200) }).problems[0]!.detail;
    expect(failing).toBe("the forge's last 2 of 3 deliveries failed; the latest, at 2026-11-21T11:03:00Z, was answered 401");
    const held = hook({ active: false, inactiveWhy: "GitLab holds the hook back until 13:00" });
    expect(judgeHookHealth({ ...healthy, forge: { read: held } }).problems[0]!.detail).toContain("GitLab holds the hook back until 13:00");
    expect(judgeHookHealth({ ...healthy, forge: { read: hook({ active: false }) } }).problems[0]!.detail).toContain("the hook is switched off on the forge");
    const denied = judgeHookHealth({ ...healthy, forge: { unreachable: { code: "forge_denied", reason: "the forge answered 403", status: 403 } } });
    expect(denied.problems[0]!.detail).toBe("the hook could not be read from the forge: it refused the connection's credential (the forge answered 403)");
    const missing = judgeHookHealth({ ...healthy, forge: { read: hook({ events: [] }) } }).problems[0]!.detail;
    expect(missing).toContain("pull_request, issue_comment");
  });
});

describe("summariseDeliveries", () => {
  it("counts failures, the failures in a row from the latest, and the latest of each", () => {
    expect(summary(0, 502, 200, 404)).toEqual({
      checked: 4,
      failed: 3,
      failing_streak: 2,
      latest_failure: { status_code: 0, status: "failed to connect", delivered_at: "2026-11-21T11:04:00Z" },
      latest_success_at: "2026-11-21T11:02:00Z",
    });
    expect(summary()).toEqual({ checked: 0, failed: 0, failing_streak: 0, latest_failure: null, latest_success_at: null });
    expect(summary(500, 500)).toMatchObject({ failing_streak: 2, latest_success_at: null });
  });
});
