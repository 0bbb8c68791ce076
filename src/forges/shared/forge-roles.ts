import { REPLIER_ROLES } from "../../webhooks/webhook-config.js";
import type { ForgeRole } from "./forge-client.js";

/**
 * Each forge's own repository levels on the spec's ladder. GitLab reports a number
 * (https://docs.gitlab.com/api/members/#roles); GitHub reports role names, and Forgejo/Gitea
 * access modes with the same words plus `owner`. The "Forge API clients" table of docs/forge-connections.md is this one.
 */
export const ROLE_MAPPING: readonly { role: ForgeRole; gitlabLevel: number; permissionNames: readonly string[] }[] = [
  { role: "guest", gitlabLevel: 10, permissionNames: ["read"] },
  { role: "reporter", gitlabLevel: 20, permissionNames: ["triage"] },
  { role: "developer", gitlabLevel: 30, permissionNames: ["write"] },
  { role: "maintainer", gitlabLevel: 40, permissionNames: ["maintain"] },
  { role: "owner", gitlabLevel: 50, permissionNames: ["admin", "owner"] },
];

/** Levels between rows round down (GitLab's Planner, 15, is a guest here); below 10 (Minimal access, 5) is none. */
export function roleFromGitlabLevel(level: number): ForgeRole | "none" {
  let found: ForgeRole | "none" = "none";
  for (const row of ROLE_MAPPING) if (level >= row.gitlabLevel) found = row.role;
  return found;
}

/** A name the table does not know (a custom role, `none`, a new word) is no role: fail closed. */
export function roleFromPermissionName(name: string | undefined): ForgeRole | "none" {
  const lower = name?.toLowerCase();
  return ROLE_MAPPING.find((row) => lower !== undefined && row.permissionNames.includes(lower))?.role ?? "none";
}

/** Whether `role` reaches `min` on the ladder; "none" reaches nothing. */
export function roleAtLeast(role: ForgeRole | "none", min: ForgeRole): boolean {
  return role !== "none" && REPLIER_ROLES.indexOf(role) >= REPLIER_ROLES.indexOf(min);
}
