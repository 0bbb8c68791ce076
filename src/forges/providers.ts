import type { ProviderName } from "../webhooks/webhook-config.js";
import { forgeA } from "./gitlab/gitlab-webhook.js";
import { forgeB } from "./github/github-webhook.js";
import { forgeC } from "./forgejo/forgejo-webhook.js";
import { generic } from "./generic/generic-webhook.js";
import type { Provider } from "./shared/provider.js";

/** Every provider name maps to its module; leaving one out is a compile error. */
export const providers = {
  forge_a: forgeA,
  forge_b: forgeB,
  forge_c: forgeC,
  generic,
} satisfies Record<ProviderName, Provider>;
