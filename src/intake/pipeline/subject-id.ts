import type { ForgeProviderName } from "../../forges/shared/forge-client.js";

const PREFIX: Record<ForgeProviderName, string> = { forge_a: "gl", forge_b: "gh", forge_c: "fj" };

/** `gh:acme/app#12`; GitLab MRs use `!` as GitLab writes them (`gl:group/app!5`). */
export function pullSubjectId(provider: ForgeProviderName, projectPath: string, number: number): string {
  return `${PREFIX[provider]}:${projectPath}${provider === "forge_a" ? "!" : "#"}${number}`;
}

/** `gh:acme/app#3`; GitHub and Gitea share one number space for issues and PRs. */
export function issueSubjectId(provider: ForgeProviderName, projectPath: string, number: number): string {
  return `${PREFIX[provider]}:${projectPath}#${number}`;
}
