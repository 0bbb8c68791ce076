import type { ProviderName } from "../webhooks/webhook-config.js";
import { generic } from "./generic/generic-webhook.js";
import { forges } from "./registry.js";
import type { Provider } from "./shared/provider.js";

/** Every provider's deliveries: each forge's, and generic's. Leaving one out is a compile error. */
export const providers: Record<ProviderName, Provider> = {
  forge_a: forges.forge_a.provider,
  forge_b: forges.forge_b.provider,
  forge_c: forges.forge_c.provider,
  generic,
};
