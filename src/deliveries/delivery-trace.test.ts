import { describe, expect, it } from "vitest";
import { decidingStep, traceOf } from "./delivery-trace.js";

const row = (over: Partial<Parameters<typeof decidingStep>[0]>) => ({
  status: "filtered" as const,
  event_kind: null,
  reason: null,
  denial_reason: null,
  bot_id: null,
  run_id: null,
  ...over,
});

describe("the step that decided a delivery", () => {
  it.each([
    [row({ status: "rate_limited" }), "admission"],
    [row({ status: "quota_exceeded" }), "admission"],
    [row({ status: "invalid", reason: "missing signature" }), "verification"],
    [row({ status: "invalid", event_kind: "generic", reason: "generic: too many vars" }), "lane"],
    [row({ status: "filtered", event_kind: "pull_request", reason: "draft" }), "filters"],
    [row({ status: "filtered", event_kind: "pull_request", bot_id: "review-pr", reason: "parked launch dropped" }), "lane"],
    [row({ status: "accepted", event_kind: "pull_request", bot_id: "review-pr" }), "lane"],
    [row({ status: "duplicate", event_kind: "pull_request", bot_id: "review-pr" }), "idempotency"],
    [row({ status: "launch_error", denial_reason: "monthly_run_quota_exceeded" }), "gate"],
    [row({ status: "launch_error", reason: "forge unreachable" }), "lane"],
    [row({ status: "launched", run_id: "run_1" }), "gate"],
  ] as const)("%o → %s", (r, step) => {
    expect(decidingStep(r)).toBe(step);
  });

  it("marks the steps before the deciding one passed and those after it not reached", () => {
    const t = traceOf(row({ status: "filtered", event_kind: "pull_request", reason: "draft" }));
    expect(t.steps.map((s) => [s.step, s.result])).toEqual([
      ["admission", "passed"],
      ["verification", "passed"],
      ["parse", "passed"],
      ["filters", "decided"],
      ["lane", "not_reached"],
      ["idempotency", "not_reached"],
      ["gate", "not_reached"],
    ]);
    expect(t.steps[2]!.detail).toBe("pull_request");
    expect(t.steps[3]!.detail).toBe("draft");
    expect(traceOf(row({ status: "launch_error", denial_reason: "org_suspended", reason: "org is suspended" })).steps.at(-1)!.detail).toBe(
      "org_suspended: org is suspended",
    );
  });
});
