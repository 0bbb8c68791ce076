import { describe, expect, it } from "vitest";
import { PROVIDER_ALIASES, PROVIDER_NAMES, PROVIDERS, providerNamed } from "./provider-names.js";

describe("the table of provider names", () => {
  it("names the spec's four providers, three of them forges", () => {
    expect(PROVIDERS).toEqual(["forge_a", "forge_b", "forge_c", "generic"]);
    expect(PROVIDERS.map((p) => PROVIDER_NAMES[p].forge)).toEqual(["gitlab", "github", "forgejo", null]);
  });

  it.each([
    ["forge_a", "forge_a"],
    ["gitlab", "forge_a"],
    ["GitLab", "forge_a"],
    ["github", "forge_b"],
    ["FORGE_B", "forge_b"],
    ["forgejo", "forge_c"],
    ["gitea", "forge_c"],
    ["gogs", "forge_c"],
    ["generic", "generic"],
  ])("takes %s as %s", (input, name) => {
    expect(providerNamed(input)).toBe(name);
  });

  it.each([["bitbucket"], [""], ["constructor"], ["__proto__"], [" gitlab"], ["forge_d"]])("knows no provider %j", (input) => {
    expect(providerNamed(input)).toBeUndefined();
  });

  it("lists the names beside the spec's, each once", () => {
    expect(PROVIDER_ALIASES).toEqual(["gitlab", "github", "forgejo", "gitea", "gogs"]);
  });
});
