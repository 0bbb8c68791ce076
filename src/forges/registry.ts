import type { ForgeProviderName } from "./shared/forge-client.js";
import { forgeA } from "./gitlab/gitlab-api.js";
import { forgeB } from "./github/github-api.js";
import { forgeC } from "./forgejo/forgejo-api.js";
import type { ForgeModule } from "./shared/forge-module.js";

/** Every forge provider maps to its API client; leaving one out is a compile error. Generic has no forge. */
export const forgeModules = {
  forge_a: forgeA,
  forge_b: forgeB,
  forge_c: forgeC,
} satisfies Record<ForgeProviderName, ForgeModule>;
