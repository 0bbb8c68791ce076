import type { ProviderName } from "../../webhooks/webhook-config.js";
import { forgeA } from "./forge-a.js";
import { forgeB } from "./forge-b.js";
import { forgeC } from "./forge-c.js";
import { generic } from "./generic.js";
import type { Provider } from "./provider.js";

/** Every provider name maps to its module; leaving one out is a compile error. */
export const providers = {
  forge_a: forgeA,
  forge_b: forgeB,
  forge_c: forgeC,
  generic,
} satisfies Record<ProviderName, Provider>;
