import type { ForgeProviderName } from "./forge-client.js";
import { forgeA } from "./forge-a.js";
import { forgeB } from "./forge-b.js";
import { forgeC } from "./forge-c.js";
import type { ForgeModule } from "./forge-module.js";

/** Every forge provider maps to its API client; leaving one out is a compile error. Generic has no forge. */
export const forgeModules = {
  forge_a: forgeA,
  forge_b: forgeB,
  forge_c: forgeC,
} satisfies Record<ForgeProviderName, ForgeModule>;
