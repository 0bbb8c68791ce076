import type { Forge } from "../shared/forge.js";
import { forgejoApi } from "./forgejo-api.js";
import { forgejoHooks } from "./forgejo-hooks.js";
import { forgejoWebhook } from "./forgejo-webhook.js";

/** Forgejo, and Gitea (and Gogs) whose API and hooks Forgejo keeps. */
export const forgejo = {
  name: "forgejo",
  provider: forgejoWebhook,
  api: forgejoApi,
  hooks: { build: (http) => forgejoHooks(http), headers: {} },
  connecting: { securityTokens: { refused: "Forgejo has no API that mints an org token" }, tokenLoginIsBot: false },
} satisfies Forge;
