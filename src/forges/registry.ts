import { forgejo } from "./forgejo/forgejo.js";
import { github } from "./github/github.js";
import { gitlab } from "./gitlab/gitlab.js";
import type { ForgeRegistry } from "./shared/forge.js";

/**
 * The spec's neutral provider names to the forge modules, as the table of provider names
 * (webhooks/provider-names.ts) pairs them with the forges' own names; inside src/forges/ a forge
 * goes by its own name. Typed by that table ({@link ForgeRegistry}): a provider left out, a forge
 * under a name the table gives another, or a forge the table does not name is a compile error.
 * Generic has no forge.
 */
export const forges = {
  forge_a: gitlab,
  forge_b: github,
  forge_c: forgejo,
} satisfies ForgeRegistry;
