import { describe, expect, it } from "vitest";
import { HeldKeys } from "./held-keys.js";

describe("keys seen held", () => {
  it("knows a key per team, and forgets it on request", () => {
    const keys = new HeldKeys();
    keys.remember("team_a", "k1");
    expect(keys.has("team_a", "k1")).toBe(true);
    expect(keys.has("team_b", "k1")).toBe(false);
    expect(keys.has("team_a", "k2")).toBe(false);
    keys.forget("team_b", "k1");
    expect(keys.has("team_a", "k1")).toBe(true);
    keys.forget("team_a", "k1");
    expect(keys.has("team_a", "k1")).toBe(false);
  });

  it("keeps at most its bound, forgetting the first remembered first", () => {
    const keys = new HeldKeys(3);
    for (const key of ["k1", "k2", "k3", "k1", "k4"]) keys.remember("team_a", key);
    expect(keys.size).toBe(3);
    expect(["k1", "k2", "k3", "k4"].filter((k) => keys.has("team_a", k))).toEqual(["k2", "k3", "k4"]);
    // One team's key in place of another's: the same key, held per team.
    keys.remember("team_b", "k2");
    expect(keys.size).toBe(3);
    expect([keys.has("team_a", "k2"), keys.has("team_b", "k2"), keys.has("team_a", "k3")]).toEqual([false, true, true]);
  });
});
