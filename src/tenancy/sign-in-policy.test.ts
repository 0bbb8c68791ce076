import { describe, expect, it } from "vitest";
import { decideLogin, SIGN_IN_POLICY, type AccountState } from "./sign-in-policy.js";

const NOW = 1_000_000_000;
const LOCK = SIGN_IN_POLICY.lockMs;
const account = (over: Partial<AccountState> = {}): AccountState => ({
  failedLogins: 0,
  lockedUntil: null,
  passwordSetAt: NOW - 1000,
  changeRequired: false,
  ...over,
});

describe("decideLogin", () => {
  it.each([
    ["unknown login, any password", undefined, true, 0, { result: "invalid" }],
    ["right password", account(), true, 0, { result: "success" }],
    ["right password clears failures", account({ failedLogins: 3 }), true, 0, { result: "success", write: { failedLogins: 0, lockedUntil: null } }],
    ["wrong password counts", account({ failedLogins: 1 }), false, 0, { result: "invalid", write: { failedLogins: 2, lockedUntil: null } }],
    ["the fifth wrong one locks", account({ failedLogins: 4 }), false, 0, { result: "invalid", write: { failedLogins: 5, lockedUntil: NOW + LOCK } }],
    ["locked refuses the right password", account({ failedLogins: 5, lockedUntil: NOW + 90_500 }), true, 0, { result: "locked", retryAfter: 91 }],
    [
      "a passed lock lets the right password in",
      account({ failedLogins: 5, lockedUntil: NOW }),
      true,
      0,
      { result: "success", write: { failedLogins: 0, lockedUntil: null } },
    ],
    [
      "a passed lock counts afresh",
      account({ failedLogins: 5, lockedUntil: NOW - 1 }),
      false,
      0,
      { result: "invalid", write: { failedLogins: 1, lockedUntil: null } },
    ],
    ["admin-set password", account({ changeRequired: true }), true, 0, { result: "password_change_required" }],
    ["admin-set, wrong password", account({ changeRequired: true }), false, 0, { result: "invalid", write: { failedLogins: 1, lockedUntil: null } }],
    ["expired password", account({ passwordSetAt: NOW - 10_000 }), true, 10_000, { result: "password_change_required" }],
    ["not yet expired", account({ passwordSetAt: NOW - 9_999 }), true, 10_000, { result: "success" }],
  ] as const)("%s", (_name, state, ok, maxAge, verdict) => {
    expect(decideLogin(state, ok, NOW, maxAge)).toEqual(verdict);
  });
});
