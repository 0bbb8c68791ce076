import { forgejo } from "./forgejo/forgejo.js";
import { github } from "./github/github.js";
import { gitlab } from "./gitlab/gitlab.js";
import type { ForgeProviderName } from "./shared/forge-client.js";
import type { Forge } from "./shared/forge.js";

/**
 * The spec's neutral provider names and the real forges they are (SPEC-NOTES §1): the one place
 * they meet; inside src/forges/ a forge goes by its own name. Every forge provider maps to its
 * forge, and a forge whose deliveries carry another name, or one left out, is a compile error.
 * Generic has no forge.
 */
export const forges = {
  forge_a: gitlab,
  forge_b: github,
  forge_c: forgejo,
} satisfies { [N in ForgeProviderName]: Forge<N> };
