import { describe, expect, it } from "vitest";
import { REPLIER_ROLES } from "../../webhooks/webhook-config.js";
import { ROLE_MAPPING, roleAtLeast, roleFromGitlabLevel, roleFromPermissionName } from "./forge-roles.js";

describe("the role mapping table", () => {
  it("has one row per spec role, lowest first", () => {
    expect(ROLE_MAPPING.map((r) => r.role)).toEqual([...REPLIER_ROLES]);
  });

  it.each(ROLE_MAPPING.map((row) => [row.role, row] as const))("maps every forge level of %s", (role, row) => {
    expect(roleFromGitlabLevel(row.gitlabLevel)).toBe(role);
    for (const name of row.permissionNames) {
      expect(roleFromPermissionName(name)).toBe(role);
      expect(roleFromPermissionName(name.toUpperCase())).toBe(role);
    }
  });

  it.each([
    ["read", "guest"],
    ["triage", "reporter"],
    ["write", "developer"],
    ["maintain", "maintainer"],
    ["admin", "owner"],
    ["owner", "owner"],
  ])("reads the forge's %s as %s", (name, role) => {
    expect(roleFromPermissionName(name)).toBe(role);
  });

  it.each([
    [0, "none"],
    [5, "none"],
    [10, "guest"],
    [15, "guest"],
    [20, "reporter"],
    [30, "developer"],
    [40, "maintainer"],
    [50, "owner"],
    [60, "owner"],
  ])("reads GitLab access level %i as %s (between rows rounds down)", (level, role) => {
    expect(roleFromGitlabLevel(level)).toBe(role);
  });

  it("fails closed on names it does not know", () => {
    for (const name of ["none", "security-manager", "", undefined]) expect(roleFromPermissionName(name)).toBe("none");
  });

  it("orders roles on the ladder, none below all", () => {
    expect(roleAtLeast("developer", "developer")).toBe(true);
    expect(roleAtLeast("maintainer", "developer")).toBe(true);
    expect(roleAtLeast("reporter", "developer")).toBe(false);
    expect(roleAtLeast("none", "guest")).toBe(false);
  });
});
