import { describe, expect, it } from "vitest";
import { checkRepoBotInput, checkRepoPath, webhookFieldsOf } from "./repo-bot-fields.js";

describe("repo-bots fields", () => {
  it("refuses the base pin and the security token in one body", () => {
    expect(() => checkRepoBotInput({ connection_id: "c", repo: "a/b", webhook_base_url: "https://h", security_read_enabled: false })).toThrow(/separate/);
    expect(() => checkRepoBotInput({ connection_id: "c", repo: "a/b", webhook_base_url: "https://h" })).not.toThrow();
    expect(() => checkRepoBotInput({ connection_id: "c", repo: "a/b", security_read_enabled: false })).not.toThrow();
  });

  it("passes on only the webhook fields named", () => {
    expect(webhookFieldsOf({ connection_id: "c", repo: "a/b", hold_labels: ["wip"], gate_context: "ci" })).toEqual({ hold_labels: ["wip"] });
    expect(webhookFieldsOf({ connection_id: "c", repo: "a/b" })).toEqual({});
  });

  it.each([
    ["forge_b", "acme/widgets", true],
    ["forge_c", "acme/widgets", true],
    ["forge_a", "acme/platform/widgets", true],
    ["forge_b", "acme/platform/widgets", false],
    ["forge_b", "acme", false],
    ["forge_a", "acme/../x", false],
    ["forge_c", "acme/wid gets", false],
  ] as const)("%s repo %s valid: %s", (provider, repo, ok) => {
    if (ok) expect(checkRepoPath(provider, repo)).toBe(repo);
    else expect(() => checkRepoPath(provider, repo)).toThrow();
  });
});
