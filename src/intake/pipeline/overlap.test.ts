import { describe, expect, it } from "vitest";
import type { LaunchPlan } from "./launch-plan.js";
import { decideOverlap } from "./overlap.js";

const plan = (over: Partial<LaunchPlan> = {}): LaunchPlan => ({
  botId: "review-pr",
  vars: {},
  idempotencyKey: "gh|t|w|acme/app|7|new",
  subjectId: "gh:acme/app#7",
  projectPath: "acme/app",
  ...over,
});
const inFlight = [{ id: "run_old", idempotencyKey: "gh|t|w|acme/app|7|old" }];
const ownRedelivery = [{ id: "run_same", idempotencyKey: "gh|t|w|acme/app|7|new" }];

describe("decideOverlap, keyed on (webhook, subject, bot)", () => {
  it.each([
    ["", plan(), inFlight, { kind: "launch" }],
    ["allow", plan(), inFlight, { kind: "launch" }],
    ["skip", plan(), [], { kind: "launch" }],
    ["skip", plan(), inFlight, { kind: "skip", reason: "overlap skip: review-pr already runs on gh:acme/app#7 (run_old)" }],
    ["supersede", plan(), inFlight, { kind: "supersede", runIds: ["run_old"] }],
    ["supersede", plan(), ownRedelivery, { kind: "launch" }],
    ["skip", plan(), ownRedelivery, { kind: "launch" }],
    ["", plan({ collapse: true }), inFlight, { kind: "skip", reason: "review re-request folded into the in-flight review run_old of gh:acme/app#7" }],
    ["allow", plan({ collapse: true }), [], { kind: "launch" }],
    ["supersede", plan({ collapse: true }), inFlight, { kind: "supersede", runIds: ["run_old"] }],
  ] as const)("overlap %j: %o with %o in flight → %o", (mode, p, active, want) => {
    expect(decideOverlap(mode, p, active)).toEqual(want);
  });
});
